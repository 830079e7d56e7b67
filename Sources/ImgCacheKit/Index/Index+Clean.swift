import Foundation
import GRDB

/// The queries of `clean` and `clear`. Each batch runs in its own short write transaction, in
/// which the caller's `unlink` removes the files of the rows being deleted; a batch of `clean`
/// first merges the uses recorded by every process (``EntryUses``), so it trims in the latest
/// LRU order.
extension Index {
  private typealias Columns = CacheEntry.Columns

  /// The page cache of a clean's transactions, in KiB: a batch dirties pages all over the table
  /// and its indexes, and with SQLite's default (2 MiB) they spill to the WAL before commit and
  /// are written and read again several times.
  private static let cleanCacheKiB = 32_768

  /// Raises the connection's page cache to ``cleanCacheKiB`` (kept for the process: a clean).
  private func enlargeCache(_ db: Database) throws {
    try db.execute(sql: "PRAGMA cache_size = -\(Self.cleanCacheKiB)")
  }

  /// The condition of entries expired at `time`: last used at or before `time − maxAge` (none
  /// when `maxAge` is negative), or past their own expiry.
  private func expired(maxAge: TimeInterval, at time: Date) -> SQLExpression {
    let moment = time.timeIntervalSince1970
    // COALESCE: a NULL expiry means "none", and must not make NOT (…) unknown.
    let ownExpiry = SQL("COALESCE(\(Columns.expiry) <= \(moment), 0)").sqlExpression
    guard maxAge >= 0 else { return ownExpiry }
    return Columns.lastAccess <= moment - maxAge || ownExpiry
  }

  /// Deletes up to `limit` expired entries, least recently used first; returns them.
  func deleteExpired(
    maxAge: TimeInterval, at time: Date, limit: Int, unlink: ([CacheEntry]) throws -> Void
  ) throws -> [CacheEntry] {
    try write { db in
      try enlargeCache(db)
      try EntryUses.merge(db)
      let rows = try CacheEntry.filter(expired(maxAge: maxAge, at: time))
        .order(Columns.lastAccess).limit(limit).fetchAll(db)
      try unlink(rows)
      try IndexSchema.delete(rows, db)
      try IndexSchema.increment([.evictionsAge: Int64(rows.count)], db)
      return rows
    }
  }

  /// Deletes, least recently used first among the next `limit` rows, those `choose` picks
  /// given the current totals (with the eviction counter of each); returns them and whether
  /// rows remain to consider.
  func deleteLeastRecentlyUsed(
    limit: Int, choose: (CacheTotals, [CacheEntry]) -> [(CacheEntry, Counter)],
    unlink: ([CacheEntry]) throws -> Void
  ) throws -> (removed: [CacheEntry], exhausted: Bool) {
    try write { db in
      try enlargeCache(db)
      try EntryUses.merge(db)
      let rows = try CacheEntry.order(Columns.lastAccess, Columns.created).limit(limit)
        .fetchAll(db)
      let chosen = choose(try IndexSchema.totals(db), rows)
      let victims = chosen.map(\.0)
      try unlink(victims)
      try IndexSchema.delete(victims, db)
      try IndexSchema.increment(
        Dictionary(chosen.map { ($0.1, Int64(1)) }, uniquingKeysWith: +), db)
      return (victims, rows.count < limit)
    }
  }

  /// The entries a clean at `time` would expire, and the others in LRU order.
  func cleanPlan(maxAge: TimeInterval, at time: Date) throws
    -> (expired: [CacheEntry], survivors: [CacheEntry])
  {
    let condition = expired(maxAge: maxAge, at: time)
    try mergeUses()
    return try read(orIfMissing: ([], [])) { db in
      (
        try CacheEntry.filter(condition).order(Columns.lastAccess).fetchAll(db),
        try CacheEntry.filter(!condition).order(Columns.lastAccess, Columns.created)
          .fetchAll(db)
      )
    }
  }

  /// Makes the rows of one shard equal its files: `listFiles` (called inside the transaction)
  /// gives the files on disk as `ab/<name>`; files without a row go to `unlinkOrphans`, rows
  /// without a file are dropped. With `dryRun` nothing changes. Returns orphans and missing.
  func reconcile(
    shard: String, dryRun: Bool, listFiles: () throws -> Set<String>,
    unlinkOrphans: ([String]) throws -> Void
  ) throws -> (orphans: [String], missing: [String]) {
    func work(_ db: Database) throws -> ([String], [String]) {
      let onDisk = try listFiles()
      let indexed = try String.fetchSet(
        db, CacheEntry.select(Columns.file).filter(Self.inShard(shard)))
      let orphans = onDisk.subtracting(indexed).sorted()
      if !dryRun {
        try unlinkOrphans(orphans)
        try IndexSchema.increment([.orphansSwept: Int64(orphans.count)], db)
      }
      let goneFiles = indexed.subtracting(onDisk)
      guard !goneFiles.isEmpty else { return (orphans, []) }
      let gone = try CacheEntry.filter(goneFiles.contains(Columns.file)).fetchAll(db)
      if !dryRun { try IndexSchema.delete(gone, db) }
      return (orphans, gone.map(\.file))
    }
    if dryRun { return try read(orIfMissing: ([], [])) { try work($0) } }
    return try write { try work($0) }
  }

  /// The rows whose file is in shard `ab` (`ab/…`), as a range of the `entry_file` index.
  static func inShard(_ shard: String) -> SQLExpression {
    Columns.file > shard + "/" && Columns.file < shard + "0"
  }

  /// Empties the index in one transaction in which `replaceData` swaps `data/` for an empty
  /// folder; returns the totals before and the failure records dropped.
  func clear(includingFailures: Bool, replaceData: () throws -> Void) throws
    -> (removed: CacheTotals, failures: Int)
  {
    try write { db in
      let totals = try IndexSchema.totals(db)
      let failures = includingFailures ? try FailedURL.deleteAll(db) : 0
      try replaceData()
      // The uses first: the trigger of each deleted entry then finds an empty table.
      try db.execute(sql: "DELETE FROM entry_use")
      try CacheEntry.deleteAll(db)
      try db.execute(sql: "DELETE FROM partial_download")
      try IndexSchema.increment([.evictionsClear: Int64(totals.entries)], db)
      try IndexSchema.adjustTotals(
        db,
        by: CacheTotals(
          entries: -totals.entries, bytes: -totals.bytes,
          allocated: -totals.allocated))
      return (totals, failures)
    }
  }
}
