import Foundation
import Synchronization

extension DiskCache {
  /// Rows deleted per write transaction, so other processes are never held up for long.
  static let cleanBatchSize = 2_000

  /// Cleans the cache with SDWebImage's semantics: expire by age, trim least recently used
  /// entries to strictly below `target × limit`, then sweep stale temporaries and orphans.
  /// Throws a `.busy` error at once when another clean or clear holds the lock.
  public func clean(policy: CleanPolicy, dryRun: Bool = false) throws -> CleanReport {
    guard index.exists else { return CleanReport(dryRun: dryRun) }
    let lock = try acquireCleanLock()
    defer { withExtendedLifetime(lock) {} }
    let time = now()
    if dryRun { return try planClean(policy: policy, at: time) }
    var report = CleanReport()
    report.expired = try expire(policy: policy, at: time)
    report.trimmed = try trim(policy: policy)
    report.staleTemporaries = try sweepTemporaries(
      olderThan: policy.staleTemporaryAge, at: time, dryRun: false)
    (report.orphanFiles, report.missingFiles) = try reconcileFiles(dryRun: false)
    report.remaining = try totals()
    try index.increment([
      .evictions: Int64(report.expired.count + report.trimmed.count), .cleans: 1,
    ])
    return report
  }

  /// Takes the per-cache clean lock or throws `.busy`.
  func acquireCleanLock() throws -> FileLock {
    guard let lock = try FileLock(path: layout.cleanLockFile.path) else {
      throw CacheError(.busy, "another clean or clear of \(layout.root.path) is running")
    }
    return lock
  }

  private func expire(policy: CleanPolicy, at time: Date) throws -> [RemovedEntry] {
    var removed = [RemovedEntry]()
    while true {
      let batch = try index.deleteExpired(
        maxAge: policy.maxAge, at: time, limit: Self.cleanBatchSize, unlink: unlinkFiles)
      removed += batch.map(RemovedEntry.init)
      if batch.count < Self.cleanBatchSize { return removed }
    }
  }

  /// The bounds a trim works to: it starts only above a limit and stops strictly below
  /// `target × limit`.
  private struct TrimGoal {
    var size: Double?
    var entries: Double?

    init(policy: CleanPolicy, totals: CacheTotals) {
      if policy.maxSize > 0 && totals.allocated > policy.maxSize {
        size = policy.target * Double(policy.maxSize)
      }
      if policy.maxEntries > 0 && totals.entries > policy.maxEntries {
        entries = policy.target * Double(policy.maxEntries)
      }
    }

    func isMet(by totals: CacheTotals) -> Bool {
      if let size, Double(totals.allocated) >= size { return false }
      if let entries, Double(totals.entries) >= entries { return false }
      return true
    }

    /// The first of `rows` (in LRU order) to remove until the goal is met, from `totals`.
    func victims(of rows: [CacheEntry], from totals: CacheTotals) -> [CacheEntry] {
      var remaining = totals
      var victims = [CacheEntry]()
      for row in rows where !isMet(by: remaining) {
        victims.append(row)
        remaining.entries -= 1
        remaining.bytes -= row.size
        remaining.allocated -= row.allocated
      }
      return victims
    }
  }

  private func trim(policy: CleanPolicy) throws -> [RemovedEntry] {
    let goal = TrimGoal(policy: policy, totals: try totals())
    var removed = [RemovedEntry]()
    while true {
      let (batch, exhausted) = try index.deleteLeastRecentlyUsed(
        limit: Self.cleanBatchSize, choose: { goal.victims(of: $1, from: $0) },
        unlink: unlinkFiles)
      removed += batch.map(RemovedEntry.init)
      if batch.isEmpty || exhausted { return removed }
    }
  }

  /// Unlinks the files of `rows`, inside the caller's write transaction.
  private func unlinkFiles(_ rows: [CacheEntry]) throws {
    // Unlinking is kernel work that overlaps well across cores; the index waits for all of it.
    let paths = rows.map { layout.dataPath($0.file) }
    let parts = min(4, max(1, paths.count / 64))
    let failures = Mutex<(any Error)?>(nil)
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      for index in stride(from: part, to: paths.count, by: parts) {
        do { try FileIO.unlinkIfPresent(paths[index]) } catch {
          failures.withLock { first in if first == nil { first = error } }
        }
      }
    }
    if let error = failures.withLock({ $0 }) { throw error }
  }

  /// What a clean would do, computed without changing anything.
  private func planClean(policy: CleanPolicy, at time: Date) throws -> CleanReport {
    var report = CleanReport(dryRun: true)
    let (expired, survivors) = try index.cleanPlan(maxAge: policy.maxAge, at: time)
    report.expired = expired.map(RemovedEntry.init)
    let totals = CacheTotals(
      entries: survivors.count, bytes: survivors.reduce(0) { $0 + $1.size },
      allocated: survivors.reduce(0) { $0 + $1.allocated })
    let goal = TrimGoal(policy: policy, totals: totals)
    let victims = goal.victims(of: survivors, from: totals)
    report.trimmed = victims.map(RemovedEntry.init)
    report.remaining = CacheTotals(
      entries: totals.entries - victims.count,
      bytes: totals.bytes - victims.reduce(0) { $0 + $1.size },
      allocated: totals.allocated - victims.reduce(0) { $0 + $1.allocated })
    report.staleTemporaries = try sweepTemporaries(
      olderThan: policy.staleTemporaryAge, at: time, dryRun: true)
    (report.orphanFiles, report.missingFiles) = try reconcileFiles(dryRun: true)
    return report
  }

  /// Removes files and folders in `tmp/` last modified more than `age` before `time`.
  private func sweepTemporaries(olderThan age: TimeInterval, at time: Date, dryRun: Bool) throws
    -> [String]
  {
    let directory = layout.tmpDirectory.path
    let cutoff = time.timeIntervalSince1970 - age
    var swept = [String]()
    for name in DirectoryListing.names(in: directory) {
      let path = directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0, Double(info.st_mtim.tv_sec) <= cutoff else { continue }
      if !dryRun { try FileTree.remove(path) }
      swept.append(name)
    }
    return swept
  }

  /// Makes rows equal files, one shard at a time under the write lock: files without a row are
  /// removed, rows without a file are dropped.
  private func reconcileFiles(dryRun: Bool) throws -> (orphans: [String], missing: [String]) {
    var orphans = [String]()
    var missing = [String]()
    let data = layout.dataDirectory.path
    for shard in DirectoryListing.names(in: data).sorted() where shard.utf8.count == 2 {
      let (found, gone) = try index.reconcile(
        shard: shard, dryRun: dryRun,
        listFiles: { Set(DirectoryListing.names(in: data + "/" + shard).map { shard + "/" + $0 }) },
        unlinkOrphans: { files in
          for file in files { try FileIO.unlinkIfPresent(layout.dataPath(file)) }
        })
      orphans += found
      missing += gone
    }
    return (orphans, missing)
  }
}
