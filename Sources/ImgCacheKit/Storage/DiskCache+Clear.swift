import Foundation

extension DiskCache {
  /// Removes every entry and file (and, with `includingFailedURLs`, the failed-request list) at
  /// once: `data/` is renamed aside inside the write transaction, then deleted. Busy while a
  /// clean runs.
  public func clear(includingFailedURLs: Bool = true, dryRun: Bool = false) throws -> ClearReport {
    guard index.exists else {
      return ClearReport(removed: .zero, failedURLs: 0, dryRun: dryRun)
    }
    let lock = try acquireCleanLock()
    defer { withExtendedLifetime(lock) {} }
    if dryRun {
      return ClearReport(
        removed: try index.totals(),
        failedURLs: includingFailedURLs ? try index.failureCount() : 0, dryRun: true)
    }
    let data = layout.dataDirectory.path
    let trash = layout.tmpDirectory.path + "/trash-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let (removed, failures) = try index.clear(includingFailures: includingFailedURLs) {
      if access(data, F_OK) == 0 { try FileIO.rename(data, to: trash) }
      try CacheLayout.makeDirectory(data)
    }
    forgetPreparedShards()
    try FileTree.remove(trash)
    return ClearReport(removed: removed, failedURLs: failures, dryRun: false)
  }

  /// Clears only the failed-request list; returns how many records were forgotten.
  public func clearFailedURLs(dryRun: Bool = false) throws -> Int {
    if dryRun { return try index.failureCount() }
    return try index.clearFailures()
  }
}
