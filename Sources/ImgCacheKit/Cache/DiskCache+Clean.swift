import Foundation
import GRDB

extension DiskCache {
  /// Rows deleted per write transaction, so other processes are never held up for long.
  static let cleanBatchSize = 2_000

  /// Cleans the cache with SDWebImage's semantics: expire by age, trim least recently used
  /// entries to strictly below `target × limit`, then sweep stale temporaries and orphans.
  /// Throws a `.busy` error at once when another clean or clear holds the lock.
  public func clean(policy: CleanPolicy, dryRun: Bool = false) throws -> CleanReport {
    guard try database(create: false) != nil else { return CleanReport(dryRun: dryRun) }
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
    try incrementCounters([
      "evictions": Int64(report.expired.count + report.trimmed.count), "cleans": 1,
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

  /// The SQL condition of expired entries, with its arguments.
  private func expiryCondition(policy: CleanPolicy, at time: Date) -> (String, StatementArguments) {
    let moment = time.timeIntervalSince1970
    // COALESCE: a NULL expiry means "none", and must not make NOT (…) unknown in a dry run.
    guard policy.maxAge >= 0 else { return ("COALESCE(expiry <= ?, 0)", [moment]) }
    return ("(last_access <= ? OR COALESCE(expiry <= ?, 0))", [moment - policy.maxAge, moment])
  }

  private func expire(policy: CleanPolicy, at time: Date) throws -> [RemovedEntry] {
    let (condition, arguments) = expiryCondition(policy: policy, at: time)
    var removed = [RemovedEntry]()
    while true {
      let batch = try write { db -> [RemovedEntry] in
        let rows = try CacheEntry.fetchAll(
          db, sql: "SELECT * FROM entry WHERE \(condition) ORDER BY last_access LIMIT ?",
          arguments: arguments + [Self.cleanBatchSize])
        return try deleteWithFiles(rows, db)
      }
      removed += batch
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
  }

  private func trim(policy: CleanPolicy) throws -> [RemovedEntry] {
    let start = try totals()
    let goal = TrimGoal(policy: policy, totals: start)
    var removed = [RemovedEntry]()
    var finished = goal.isMet(by: start)
    while !finished {
      let batch = try write { db -> [RemovedEntry] in
        var totals = try IndexSchema.totals(db)
        var victims = [CacheEntry]()
        let rows = try CacheEntry.fetchAll(
          db, sql: "SELECT * FROM entry ORDER BY last_access, created LIMIT ?",
          arguments: [Self.cleanBatchSize])
        for row in rows {
          if goal.isMet(by: totals) { break }
          victims.append(row)
          totals.entries -= 1
          totals.allocated -= row.allocated
        }
        finished = goal.isMet(by: totals) || rows.isEmpty
        return try deleteWithFiles(victims, db)
      }
      removed += batch
    }
    return removed
  }

  /// Unlinks the files of `rows` and deletes the rows, inside the caller's write transaction.
  private func deleteWithFiles(_ rows: [CacheEntry], _ db: Database) throws -> [RemovedEntry] {
    // Unlinking is kernel work that overlaps well across cores; the index waits for all of it.
    let paths = rows.map { layout.dataPath($0.file) }
    let failures = UnlinkFailures()
    DispatchQueue.concurrentPerform(iterations: min(4, max(1, paths.count / 64))) { part in
      let parts = min(4, max(1, paths.count / 64))
      for index in stride(from: part, to: paths.count, by: parts) {
        do { try FileIO.unlinkIfPresent(paths[index]) } catch { failures.record(error) }
      }
    }
    if let error = failures.first { throw error }
    try IndexSchema.delete(rows, db)
    return rows.map(RemovedEntry.init)
  }

  /// What a clean would do, computed without changing anything.
  private func planClean(policy: CleanPolicy, at time: Date) throws -> CleanReport {
    var report = CleanReport(dryRun: true)
    let (condition, arguments) = expiryCondition(policy: policy, at: time)
    let (expired, survivors) = try read(orIfMissing: ([CacheEntry](), [CacheEntry]())) { db in
      (
        try CacheEntry.fetchAll(
          db, sql: "SELECT * FROM entry WHERE \(condition)", arguments: arguments),
        try CacheEntry.fetchAll(
          db, sql: "SELECT * FROM entry WHERE NOT (\(condition)) ORDER BY last_access, created",
          arguments: arguments)
      )
    }
    report.expired = expired.map(RemovedEntry.init)
    var totals = CacheTotals(
      entries: survivors.count, bytes: survivors.reduce(0) { $0 + $1.size },
      allocated: survivors.reduce(0) { $0 + $1.allocated })
    let goal = TrimGoal(policy: policy, totals: totals)
    for row in survivors where !goal.isMet(by: totals) {
      report.trimmed.append(RemovedEntry(row))
      totals.entries -= 1
      totals.bytes -= row.size
      totals.allocated -= row.allocated
    }
    report.remaining = totals
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
      let work = { (db: Database) throws -> Void in
        let onDisk = Set(DirectoryListing.names(in: data + "/" + shard).map { shard + "/" + $0 })
        let indexed = try String.fetchSet(
          db, sql: "SELECT file FROM entry WHERE file > ? AND file < ?",
          arguments: [shard + "/", shard + "0"])
        for file in onDisk.subtracting(indexed).sorted() {
          if !dryRun { try FileIO.unlinkIfPresent(self.layout.dataPath(file)) }
          orphans.append(file)
        }
        let goneFiles = indexed.subtracting(onDisk)
        guard !goneFiles.isEmpty else { return }
        let gone = try CacheEntry.filter(goneFiles.contains(Column("file"))).fetchAll(db)
        if !dryRun { try IndexSchema.delete(gone, db) }
        missing += gone.map(\.file)
      }
      if dryRun {
        try read(orIfMissing: ()) { db in try work(db) }
      } else {
        try write { db in try work(db) }
      }
    }
    return (orphans, missing)
  }
}

/// The first error of a concurrent unlink.
private final class UnlinkFailures: @unchecked Sendable {
  private let lock = NSLock()
  private(set) var first: (any Error)?

  func record(_ error: any Error) {
    lock.lock()
    if first == nil { first = error }
    lock.unlock()
  }
}
