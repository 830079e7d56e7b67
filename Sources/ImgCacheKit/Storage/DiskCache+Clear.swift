import FoundationEssentials
import Glibc

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
    var movedAside: String?
    do {
      _ = try index.totals()
    } catch  where Index.isCorruption(error) && !dryRun {
      // A damaged index is recovered by starting over: it is moved aside, data/ emptied.
      movedAside = try index.moveAside()
    }
    if dryRun {
      return ClearReport(
        removed: try index.totals(),
        failedURLs: includingFailedURLs ? try index.failureCount() : 0, dryRun: true)
    }
    guard let root = try layout.openRoot() else {
      return ClearReport(removed: .zero, failedURLs: 0, dryRun: false)
    }
    let trash = Self.trashPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    // One transaction: data/ is swapped for an empty folder while the rows go, so no process
    // sees rows without files or files without rows.
    // A failed transaction puts data/ back before it is rolled back. On a full disk the index
    // may have no room to forget the rows: the files go first (their rows are going anyway, and
    // a reader takes a row without its file for a miss), then the transaction runs once more.
    let undo = {
      guard root.status(trash) != nil else { return }
      try? root.removeTree("data")
      try? root.rename(trash, to: "data")
    }
    let (removed, failures) = try freeingRoom(making: { try? root.removeTree("data") }) {
      try index.transaction(undoing: undo) { tx in
        let failures = includingFailedURLs ? try tx.deleteAllFailures() : 0
        // A rename never follows the link it renames; the trash stays inside $DIR.
        if root.status("data") != nil { try root.rename("data", to: trash) }
        try CacheLayout.makeDirectory(layout.dataFolder)
        return (try tx.deleteAllEntries(), failures)
      }
    }
    forgetPreparedShards()
    try root.removeTree(trash)
    // Starting over includes a link or file where tmp/ belongs: removed, never followed.
    switch try root.child("tmp") {
    case .foreign:
      try root.unlink("tmp")
      try CacheLayout.makeDirectory(layout.tmpPath)
    case .directory(let tmp):
      // And the partial bodies kept for resumed downloads (their records went with the rows).
      for name in try tmp.names() where name.hasPrefix(CacheLayout.partialPrefix) {
        try tmp.removeTree(name)
      }
    case .missing: break
    }
    index.keepReserve()
    return ClearReport(
      removed: removed, failedURLs: failures, dryRun: false, damagedIndex: movedAside)
  }

  /// Clears only the failed-request list; returns how many records were forgotten.
  public func clearFailedURLs(dryRun: Bool = false) throws -> Int {
    if dryRun { return try index.failureCount() }
    return try index.clearFailures()
  }
}
