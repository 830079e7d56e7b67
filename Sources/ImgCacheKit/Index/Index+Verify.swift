import Foundation
import GRDB

/// What `verify` found in one shard: rows without a file, files without a row, and rows whose
/// recorded sizes differ from their file's.
struct ShardFindings {
  var checked = 0
  var missing = [CacheEntry]()
  /// Files as `ab/<name>`.
  var orphans = [String]()
  var resized = [(entry: CacheEntry, size: Int64, allocated: Int64)]()
}

/// The queries of `verify`. Every check of rows against files runs in a write transaction, so a
/// process storing at the same time is never seen half-way (a file placed, its row not yet
/// committed) and nothing it stores is reported.
extension Index {
  /// Checks one shard: `examine` (called inside the transaction with the shard's rows) compares
  /// them with the files and, with `repair`, deletes the orphans; the rows are fixed here.
  func verify(shard: String, repair: Bool, examine: ([CacheEntry]) throws -> ShardFindings)
    throws -> ShardFindings
  {
    try writeIfExists(orIfMissing: ShardFindings()) { db in
      let rows = try CacheEntry.filter(Self.inShard(shard)).fetchAll(db)
      let findings = try examine(rows)
      guard repair else { return findings }
      try IndexSchema.delete(findings.missing, db)
      var delta = CacheTotals.zero
      let update = try db.cachedStatement(
        sql: "UPDATE entry SET size = ?, allocated = ? WHERE key = ?")
      for (entry, size, allocated) in findings.resized {
        try update.execute(arguments: [size, allocated, entry.key])
        delta.bytes += size - entry.size
        delta.allocated += allocated - entry.allocated
      }
      try IndexSchema.adjustTotals(db, by: delta)
      try IndexSchema.increment([.orphansSwept: Int64(findings.orphans.count)], db)
      return findings
    }
  }

  /// The running totals and the sums of the rows, read together; with `repair`, the totals are
  /// set to the sums when they differ.
  func verifyTotals(repair: Bool) throws -> (recorded: CacheTotals, actual: CacheTotals) {
    try writeIfExists(orIfMissing: (CacheTotals.zero, CacheTotals.zero)) { db in
      let recorded = try IndexSchema.totals(db)
      guard
        let row = try Row.fetchOne(
          db,
          sql: "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(allocated), 0) FROM entry")
      else { return (recorded, recorded) }
      let actual = CacheTotals(entries: row[0], bytes: row[1], allocated: row[2])
      if repair && actual != recorded {
        try db.execute(
          sql: "UPDATE totals SET entries = ?, bytes = ?, allocated = ? WHERE id = 1",
          arguments: [actual.entries, actual.bytes, actual.allocated])
      }
      return (recorded, actual)
    }
  }

  /// Deletes the row of `entry` (with `unlink` removing its file in the same transaction) when
  /// the row still describes the same body; returns whether it did.
  func dropIfUnchanged(_ entry: CacheEntry, unlink: () throws -> Void) throws -> Bool {
    try writeIfExists(orIfMissing: false) { db in
      guard let row = try CacheEntry.fetchOne(db, key: entry.key), row.file == entry.file,
        row.size == entry.size, row.sha256 == entry.sha256
      else { return false }
      try unlink()
      try IndexSchema.delete([row], db)
      return true
    }
  }

  /// Records the SHA-256 of an entry stored before hashes were kept, if its row is unchanged.
  func recordHash(_ sha256: String, of entry: CacheEntry) throws {
    try writeIfExists(orIfMissing: ()) { db in
      try db.execute(
        sql:
          "UPDATE entry SET sha256 = ? WHERE key = ? AND file = ? AND size = ? AND sha256 IS NULL",
        arguments: [sha256, entry.key, entry.file, entry.size])
    }
  }
}
