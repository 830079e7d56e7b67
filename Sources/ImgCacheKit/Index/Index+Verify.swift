import FoundationEssentials

/// The queries of `verify`. Every check of rows against files runs in a write transaction (the
/// folders' in an ``IndexTransaction`` that storage orders), so a process storing at the same
/// time is never seen half-way (a file placed, its row not yet committed) and nothing it stores
/// is reported.
extension Index {
  /// The running totals and the sums of the rows, read together; with `repair`, the totals are
  /// set to the sums when they differ.
  package func verifyTotals(repair: Bool) throws -> (recorded: CacheTotals, actual: CacheTotals) {
    try writeIfExists(orIfMissing: (CacheTotals.zero, CacheTotals.zero)) { db in
      let recorded = try IndexSchema.totals(db)
      guard
        let row = try db.firstRow(
          "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(allocated), 0) FROM entry")
      else { return (recorded, recorded) }
      let actual = CacheTotals(
        entries: try row.value(0), bytes: try row.value(1), allocated: try row.value(2))
      if repair && actual != recorded {
        try db.execute(
          sql: "UPDATE totals SET entries = ?, bytes = ?, allocated = ? WHERE id = 1",
          [actual.entries, actual.bytes, actual.allocated])
      }
      return (recorded, actual)
    }
  }

  /// Records the SHA-256 of an entry stored before hashes were kept, if its row is unchanged.
  package func recordHash(_ sha256: String, of entry: CacheEntry) throws {
    try writeIfExists(orIfMissing: ()) { db in
      try db.execute(
        sql: """
          UPDATE entry SET sha256 = ?
          WHERE \(IndexSchema.byKey) AND file_ext = ? AND size = ? AND sha256 IS NULL
          """,
        [
          StoredForm.sha256(sha256), StoredForm.digest(entry.digest), entry.key,
          StoredForm.file(entry.file, digest: entry.digest), entry.size,
        ])
    }
  }
}
