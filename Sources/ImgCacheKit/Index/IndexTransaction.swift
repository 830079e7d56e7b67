import FoundationEssentials

/// One transaction of the index, handed to storage (docs/architecture.md, Layers): `Index`
/// opens it, `DiskCache` orders its file work (a rename into `data/`, unlinks, a folder listed,
/// `data/` swapped for an empty folder) between the row operations below, so that a row and its
/// file change together for every process; the index never calls back into storage.
///
/// Valid only inside the closure it was handed to (``Index/transaction(_:)``,
/// ``Index/transactionIfExists(orIfMissing:_:)``, ``Index/readTransaction(orIfMissing:_:)``):
/// never stored, returned or used on another thread. In a read transaction only its reading
/// methods may be called (a write throws).
package struct IndexTransaction {
  private typealias Columns = CacheEntry.Columns

  /// The connection, inside its transaction: for the index's own files, never for storage.
  let db: SQLiteConnection

  /// The page cache of a clean's transactions, in KiB: a batch dirties pages all over the table
  /// and its indexes, and with SQLite's default (2 MiB) they spill to the WAL before commit and
  /// are written and read again several times.
  private static let cleanCacheKiB = 32_768

  /// Prepares a batch of `clean`: raises the connection's page cache to ``cleanCacheKiB``
  /// (kept for the process: a clean) and merges the uses recorded by every process
  /// (``EntryUses``), so the batch reads the latest LRU order.
  private func prepareCleanBatch() throws {
    try db.execute(sql: "PRAGMA cache_size = -\(Self.cleanCacheKiB)")
    try EntryUses.merge(db)
  }

  // MARK: Reading

  /// The running totals.
  package func totals() throws -> CacheTotals { try IndexSchema.totals(db) }

  /// The row of `key`, its recorded uses folded in (``EntryUses``).
  package func entry(forKey key: String) throws -> CacheEntry? {
    try EntryUses.entry(forKey: key, db)
  }

  /// Up to `limit` entries expired at `time` (``Index/expired(maxAge:at:)``), least recently
  /// used first. The first call of a clean's batch: it merges the recorded uses first, on a
  /// larger page cache.
  package func expiredEntries(maxAge: TimeInterval, at time: Date, limit: Int) throws
    -> [CacheEntry]
  {
    try prepareCleanBatch()
    var query = Index.candidates(Index.expired(maxAge: maxAge, at: time), expiring: true)
    query.limit = limit
    return try query.entries(db)
  }

  /// The `limit` least recently used entries (the oldest stored first among equal uses). The
  /// first call of a clean's batch: it merges the recorded uses first, on a larger page cache.
  package func leastRecentlyUsed(limit: Int) throws -> [CacheEntry] {
    try prepareCleanBatch()
    // The order of a clean's plan (``Index/candidates(_:expiring:)``): the rowid breaks ties.
    return try EntryQuery(order: "last_access, created, rowid", limit: limit).entries(db)
  }

  /// The rows whose file is in folder `ab` (`ab/…`): a range of the `entry_digest` index, the
  /// digests whose first byte is `ab` (none for a name that is not two lowercase hexadecimal
  /// digits).
  private static func inFolder(_ folder: String) -> SQLFilter {
    // Lowercase only, as imgcache names them: a stray `AB/` is foreign, never `ab/`'s rows.
    let lowercase = folder.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    guard folder.utf8.count == 2, lowercase, let bytes = Hex.decode(folder) else {
      return .none
    }
    // The top byte of `digest` (an integer, big-endian): one folder's values are contiguous.
    let low = UInt64(bytes[0]) << 56
    return SQLFilter(
      sql: "digest >= ? AND digest <= ?",
      arguments: [Int64(bitPattern: low), Int64(bitPattern: low | 0x00ff_ffff_ffff_ffff)])
  }

  /// Where a page of a folder's rows ended: the last row's digest and rowid.
  package struct FolderPlace {
    fileprivate let digest: Int64
    fileprivate let rowid: Int64
  }

  /// Up to `limit` rows of folder `folder` (`ab`) after `after`, in the index's order (digest,
  /// rowid), and the place of the last when there may be more.
  package func entries(inFolder folder: String, after: FolderPlace?, limit: Int) throws
    -> (rows: [CacheEntry], last: FolderPlace?)
  {
    var query = EntryQuery(
      filter: Self.inFolder(folder), order: "digest, rowid", limit: limit, extra: ["rowid"])
    if let after {
      query.filter =
        query.filter
        && SQLFilter(sql: "(digest, rowid) > (?, ?)", arguments: [after.digest, after.rowid])
    }
    let rows = try query.rows(db)
    let entries = try rows.map(CacheEntry.init(row:))
    guard rows.count == limit, let last = entries.last, let row = rows.last else {
      return (entries, nil)
    }
    return (entries, FolderPlace(digest: last.digest.high, rowid: try row.value(Columns.all.count)))
  }

  /// The files (`ab/<name>`) of the rows of folder `folder`, read from their stored file and
  /// digest (``StoredForm``) without decoding the rest of the row.
  package func files(inFolder folder: String) throws -> Set<String> {
    let filter = Self.inFolder(folder)
    let rows = try db.cursor(
      "SELECT file_ext, digest, digest_low FROM entry WHERE \(filter.sql)", filter.arguments)
    var files = Set<String>()
    while let row = try rows.next() {
      let digest = try StoredForm.digest(stored: row, at: 1)
      files.insert(StoredForm.file(stored: try row.value(0), digest: digest))
    }
    return files
  }

  /// The rows whose file is one of `files` (`ab/<name>`): found by the digest each name
  /// starts with, a few hundred at a time.
  package func entries(withFiles files: Set<String>) throws -> [CacheEntry] {
    let digests = files.compactMap { file -> Int64? in
      let name = file.split(separator: "/").last ?? ""
      return KeyDigest(hex: name.prefix(32))?.high
    }
    var entries = [CacheEntry]()
    for start in stride(from: 0, to: digests.count, by: 500) {
      let chunk = digests[start..<min(start + 500, digests.count)]
      let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
      entries += try EntryQuery(
        filter: SQLFilter(sql: "digest IN (\(marks))", arguments: chunk.map { $0 })
      ).entries(db)
    }
    return entries.filter { files.contains($0.file) }
  }

  // MARK: Writing

  /// Deletes `rows` (adjusting the totals), then adds `counts` to the counters.
  package func delete(_ rows: [CacheEntry], counting counts: [Counter: Int64] = [:]) throws {
    try IndexSchema.delete(rows, db)
    try increment(counts)
  }

  /// Adds `amounts` to the persistent counters.
  package func increment(_ amounts: [Counter: Int64]) throws {
    try IndexSchema.increment(amounts, db)
  }

  /// Records the sizes measured on disk of rows whose recorded ones differ, adjusting the
  /// totals.
  package func recordSizes(_ resized: [(entry: CacheEntry, size: Int64, allocated: Int64)]) throws {
    var delta = CacheTotals.zero
    let update = try db.cachedStatement(
      "UPDATE entry SET size = ?, allocated = ? WHERE \(IndexSchema.byKey)")
    for (entry, size, allocated) in resized {
      try update.execute([size, allocated, StoredForm.digest(entry.digest), entry.key])
      delta.bytes += size - entry.size
      delta.allocated += allocated - entry.allocated
    }
    try IndexSchema.adjustTotals(db, by: delta)
  }

  /// Deletes every failure record; returns how many there were.
  package func deleteAllFailures() throws -> Int { try Index.deleteFailures(db) }

  /// Rows `deleteAllEntries` deletes a statement.
  static let deletionBatch = 10_000

  /// Deletes every entry, their uses and the partial-download records, counted as evictions of
  /// `clear`; returns the totals before.
  package func deleteAllEntries() throws -> CacheTotals {
    let totals = try IndexSchema.totals(db)
    // The uses first: the trigger of each deleted entry then finds an empty table.
    try db.execute(sql: "DELETE FROM entry_use")
    // A batch of rowids at a time: one DELETE of every row (the table has triggers, so SQLite
    // deletes in two passes) gathers all their rowids in memory first: 149 MiB of peak RSS to
    // clear 5,000,000 entries, where this holds a batch's.
    while let last = try db.firstValue(
      "SELECT rowid FROM entry ORDER BY rowid LIMIT 1 OFFSET ?", [Self.deletionBatch - 1],
      as: Int64.self)
    {
      try db.execute(sql: "DELETE FROM entry WHERE rowid <= ?", [last])
    }
    try db.execute(sql: "DELETE FROM entry")
    try db.execute(sql: "DELETE FROM partial_download")
    try IndexSchema.increment([.evictionsClear: Int64(totals.entries)], db)
    try IndexSchema.adjustTotals(
      db,
      by: CacheTotals(
        entries: -totals.entries, bytes: -totals.bytes, allocated: -totals.allocated))
    return totals
  }
}

extension Index {
  /// Runs `body` in an IMMEDIATE write transaction (``write(_:)``: the cache created when
  /// needed, the noted counts and uses added), handing it the transaction.
  package func transaction<T>(
    undoing undo: @escaping () -> Void = {}, _ body: (IndexTransaction) throws -> T
  ) throws -> T {
    try write(undoing: undo) { db in try body(IndexTransaction(db: db)) }
  }

  /// Runs `body` in a write transaction when the cache exists; returns `empty` when it does not.
  package func transactionIfExists<T>(orIfMissing empty: T, _ body: (IndexTransaction) throws -> T)
    throws -> T
  {
    try writeIfExists(orIfMissing: empty) { db in try body(IndexTransaction(db: db)) }
  }

  /// Runs `body` in a read transaction (``read(orIfMissing:_:)``), handing it the transaction,
  /// whose reading methods only may be called; returns `empty` when the cache does not exist.
  package func readTransaction<T>(orIfMissing empty: T, _ body: (IndexTransaction) throws -> T)
    throws -> T
  {
    try read(orIfMissing: empty) { db in try body(IndexTransaction(db: db)) }
  }
}
