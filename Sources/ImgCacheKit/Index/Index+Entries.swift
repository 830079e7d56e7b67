import Foundation
import GRDB

/// Queries on the `entry` table and the running totals.
extension Index {
  private typealias Columns = CacheEntry.Columns

  /// The row of `key` with the uses recorded so far, without recording an access.
  func entry(forKey key: String) throws -> CacheEntry? {
    try read(orIfMissing: nil) { db in try EntryUses.entry(forKey: key, db) }.map(withWaitingUses)
  }

  /// The rows of those of `keys` that exist, in the order of `keys`, with the uses recorded so
  /// far: one statement per ``PaddedBatch/limit`` keys (`key IN (…)`), outside a transaction.
  func entries(forKeys keys: [String]) throws -> [CacheEntry] {
    guard !keys.isEmpty else { return [] }
    let byKey: [String: CacheEntry] = try peek(orIfMissing: [:]) { db in
      var byKey = [String: CacheEntry]()
      for (size, padded) in PaddedBatch.chunks(of: keys) {
        let statement = try db.cachedStatement(sql: EntryUses.selectByKeys(count: size))
        try EntryRows(statement, arguments: StatementArguments(strings: padded)).forEach { entry in
          byKey[entry.key] = entry
        }
      }
      return byKey
    }
    return keys.compactMap { byKey[$0].map(withWaitingUses) }
  }

  /// Drops the row of `key` when `isGone` says its file is (still) missing.
  func dropEntry(key: String, if isGone: (CacheEntry) -> Bool) throws {
    try writeIfExists(orIfMissing: ()) { db in
      guard let entry = try CacheEntry.fetchOne(db, key: key), isGone(entry) else { return }
      try IndexSchema.delete([entry], db)
    }
  }

  /// Inserts or replaces `entries` in one write transaction. `place` moves each body (by
  /// position) into `data/` inside the transaction, so the row and the file appear together to
  /// every process; an entry whose body cannot be placed fails alone. A replaced entry keeps its
  /// use count (its recorded uses folded into the new row); a stored URL's failure records are
  /// forgotten. A variant's link (`links`, by position) is recorded with its row.
  func store(
    _ entries: [CacheEntry],
    counting counters: (stored: Counter, bytes: Counter) = (
      .downloads, .bytesDownloaded
    ), links: [Int: VariantLink] = [:], place: (Int, CacheEntry) throws -> Void
  ) throws -> [Result<CacheEntry, CacheError>] {
    try write { db in
      var delta = CacheTotals.zero
      var stored: Int64 = 0
      var bytes: Int64 = 0
      let previous = try db.cachedStatement(sql: Self.previousSQL)
      let upsert = try db.cachedStatement(sql: Self.upsertSQL)
      // Most stores have no failure record or partial body to forget: two statements per
      // body saved by asking once whether there is any.
      let forget = try Self.statement(
        ifAnyIn: "failed_request", "DELETE FROM failed_request WHERE url = ?", db)
      let complete = try Self.statement(
        ifAnyIn: "partial_download", "DELETE FROM partial_download WHERE key = ?", db)
      var results = [Result<CacheEntry, CacheError>]()
      for (position, var entry) in entries.enumerated() {
        let old = try Row.fetchOne(previous, arguments: [entry.key])
        do { try place(position, entry) } catch {
          results.append(.failure(CacheError.io("cannot store the body", error, url: entry.url)))
          continue
        }
        if let old {
          entry.accessCount = old[2]
          try EntryUses.forget(key: entry.key, db)
        }
        try upsert.execute(arguments: StatementArguments(entry.values))
        if let link = links[position] { try VariantLinks.record(link, db) }
        try forget?.execute(arguments: [entry.url])
        try complete?.execute(arguments: [entry.key])
        delta.entries += old == nil ? 1 : 0
        delta.bytes += entry.size - (old?[0] ?? 0)
        delta.allocated += entry.allocated - (old?[1] ?? 0)
        stored += 1
        bytes += entry.size
        results.append(.success(entry))
      }
      try IndexSchema.adjustTotals(db, by: delta)
      try IndexSchema.increment([counters.stored: stored, counters.bytes: bytes], db)
      return results
    }
  }

  /// The size, allocated size and use count (recorded uses included) of a stored key.
  private static let previousSQL =
    "SELECT entry.size, entry.allocated, entry.access_count + "
    + "COALESCE(entry_use.access_count, 0) FROM \(EntryUses.joined) WHERE entry.key = ?"

  /// Inserts an entry, or replaces every column but its key (built once, not per store).
  private static let upsertSQL = {
    let names = Columns.all.map(\.name)
    return """
      INSERT INTO entry (\(names.joined(separator: ", ")))
      VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
      ON CONFLICT(key) DO UPDATE SET
      \(names.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
      """
  }()

  /// The statement `sql` when `table` has any row (in the caller's transaction), else nil.
  private static func statement(ifAnyIn table: String, _ sql: String, _ db: Database) throws
    -> Statement?
  {
    let any = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table))")
    return try Bool.fetchOne(any) == true ? try db.cachedStatement(sql: sql) : nil
  }

  /// Removes the row of `key` (when there is one) in a write transaction in which `unlink`
  /// removes the files (told the row, whose file may be named otherwise than the key's:
  /// a variant's); returns the row and what `unlink` said.
  func removeEntry(key: String, unlink: (CacheEntry?) throws -> Bool) throws -> (CacheEntry?, Bool)
  {
    try writeIfExists(orIfMissing: (nil, false)) { db in
      let entry = try EntryUses.entry(forKey: key, db)
      let removedFile = try unlink(entry)
      if let entry {
        try IndexSchema.delete([entry], db)
        try IndexSchema.increment([.evictionsRemove: 1], db)
      }
      return (entry, removedFile)
    }
  }

  /// Records a revalidation (304) of `key` at `time`: new validators when the server sent them,
  /// and a use. Returns the updated row, or nil when the entry is gone.
  func revalidate(
    key: String, etag: String?, lastModified: String?, freshness: ResponseFreshness,
    at time: Date
  ) throws -> CacheEntry? {
    try write { db in
      guard var entry = try EntryUses.take(key: key, db) else { return nil }
      if let etag { entry.etag = etag }
      if let lastModified { entry.lastModified = lastModified }
      entry.freshness = entry.freshness.updated(by: freshness)
      entry.lastAccess = time
      entry.accessCount += 1
      try entry.update(db)
      try IndexSchema.increment([.notModified: 1], db)
      try db.execute(sql: "DELETE FROM failed_request WHERE url = ?", arguments: [entry.url])
      return entry
    }
  }

  /// The running totals, inside a transaction the caller holds.
  func totalsInTransaction(_ db: Database) throws -> CacheTotals { try IndexSchema.totals(db) }

  /// Entries, bytes and allocated bytes, read from the running totals in O(1).
  func totals() throws -> CacheTotals {
    try read(orIfMissing: .zero) { db in try IndexSchema.totals(db) }
  }

  /// Adds `amounts` to the persistent counters.
  func increment(_ amounts: [Counter: Int64]) throws {
    try write { db in try IndexSchema.increment(amounts, db) }
  }
}
