import Foundation
import GRDB

extension DiskCache {
  /// Removes every entry and file (and, with `failedURLs`, the failed-URL list) at once: `data/`
  /// is renamed aside inside the write transaction, then deleted. Busy while a clean runs.
  public func clear(includingFailedURLs: Bool = true, dryRun: Bool = false) throws -> ClearReport {
    guard try database(create: false) != nil else {
      return ClearReport(removed: .zero, failedURLs: 0, dryRun: dryRun)
    }
    let lock = try acquireCleanLock()
    defer { withExtendedLifetime(lock) {} }
    if dryRun {
      return try read(orIfMissing: ClearReport(removed: .zero, failedURLs: 0, dryRun: true)) { db in
        ClearReport(
          removed: try IndexSchema.totals(db),
          failedURLs: includingFailedURLs
            ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM failed_url") ?? 0 : 0,
          dryRun: true)
      }
    }
    let data = layout.dataDirectory.path
    let trash = layout.tmpDirectory.path + "/trash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let report = try write { db -> ClearReport in
      let totals = try IndexSchema.totals(db)
      var failed = 0
      if includingFailedURLs {
        failed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM failed_url") ?? 0
        try db.execute(sql: "DELETE FROM failed_url")
      }
      if access(data, F_OK) == 0 { try FileIO.rename(data, to: trash) }
      try CacheLayout.makeDirectory(data)
      try db.execute(sql: "DELETE FROM entry")
      try db.execute(sql: "UPDATE totals SET entries = 0, bytes = 0, allocated = 0 WHERE id = 1")
      return ClearReport(removed: totals, failedURLs: failed, dryRun: false)
    }
    forgetPreparedShards()
    try FileTree.remove(trash)
    return report
  }

  /// Clears only the failed-URL list; returns how many were forgotten.
  public func clearFailedURLs(dryRun: Bool = false) throws -> Int {
    if dryRun {
      return try read(orIfMissing: 0) { db in
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM failed_url") ?? 0
      }
    }
    guard try database(create: false) != nil else { return 0 }
    return try write { db in
      try db.execute(sql: "DELETE FROM failed_url")
      return db.changesCount
    }
  }
}
