import FoundationEssentials

extension DiskCache {
  /// Rows deleted per write transaction: few enough that other processes wait under a second,
  /// enough that the pages of the table and its indexes (the victims are scattered over all of
  /// them) are not rewritten by every small batch. Trimming 100,000 entries to half, 2,000 a
  /// batch wrote 14× the index's pages to the WAL; 10,000 (with a larger page cache) 2.8×.
  static let cleanBatchSize = 10_000

  /// Cleans the cache with SDWebImage's semantics: expire by age, trim least recently used
  /// entries to strictly below `target × limit`, then sweep stale temporaries and orphans.
  /// Throws a `.busy` error at once when another clean or clear holds the lock.
  ///
  /// Memory stays flat whatever it removes: it works in batches, hands each entry removed to
  /// `onRemoved` as it goes (after its batch commits; in a dry run, page by page after the
  /// plan), and counts them in the report's totals; the report lists them too only with
  /// `listing`.
  public func clean(
    policy: CleanPolicy, dryRun: Bool = false, listing: Bool = true,
    onRemoved: ((CleanRemoval) -> Void)? = nil
  ) throws -> CleanReport {
    guard index.exists else {
      // No index at all (deleted?) while data/ holds files: say so rather than do nothing.
      try checkIndexMatchesData()
      return CleanReport(dryRun: dryRun)
    }
    let lock = try acquireCleanLock()
    defer { withExtendedLifetime(lock) {} }
    let time = now()
    try checkIndexMatchesData()
    let tally = CleanTally(dryRun: dryRun, listing: listing, onRemoved: onRemoved)
    if dryRun {
      try planClean(policy: policy, at: time, into: tally)
      return tally.report
    }
    tally.report.staleTemporaries.add(contentsOf: try yieldPartials(policy: policy, dryRun: false))
    try expire(policy: policy, at: time, into: tally)
    try trim(policy: policy, into: tally)
    var report = tally.report
    let swept = try sweepAndReconcile(into: &report, policy: policy, at: time, dryRun: false)
    // Per-key lock files of earlier versions (a lock a key is now a byte of locks/keys).
    _ = KeyLocks.sweepLegacyFiles(layout.locksPath)
    report.remaining = try totals()
    do {
      try freeingRoom {
        try index.increment([.cleans: 1, .temporariesSwept: Int64(swept)])
      }
    } catch  where CacheError.isNoSpace(error) {
      // No room even for two counters on a full disk: the clean is done all the same.
    }
    index.keepReserve()
    return report
  }

  /// A clean's last steps, for real or (`dryRun`) as a plan: stale temporaries swept, then
  /// rows and files made equal; what was found added to `report`. Returns how many
  /// temporaries were swept.
  func sweepAndReconcile(
    into report: inout CleanReport, policy: CleanPolicy, at time: Date, dryRun: Bool
  ) throws -> Int {
    let sweep = try sweepTemporaries(
      before: time.timeIntervalSince1970 - policy.staleTemporaryAge,
      partialsBefore: time.timeIntervalSince1970 - resume.maxAge, dryRun: dryRun)
    report.staleTemporaries.merge(sweep.swept)
    let files = try reconcileFiles(dryRun: dryRun)
    (report.orphanFiles, report.missingFiles) = (files.orphans, files.missing)
    report.noteForeign(sweep.foreign + files.foreign)
    return sweep.swept.count
  }

  /// Refuses to go on when the index is empty while `data/` holds files: the index was lost
  /// (deleted with its WAL, replaced), and every file would be removed as an orphan.
  func checkIndexMatchesData() throws {
    guard try totals().entries == 0, try dataHoldsFiles() else { return }
    // A writer renames its body into data/ inside its write transaction, before the row
    // commits: look again while no process is writing, or a first store looks like a loss.
    let lost = try index.transactionIfExists(orIfMissing: true) { tx in
      try tx.totals().entries == 0 && dataHoldsFiles()
    }
    if lost {
      throw CacheError(
        .localIO,
        "the index of \(layout.rootPath) is empty or missing but data/ holds files: not removing "
          + "them as orphans (was index.sqlite deleted or replaced?); restore it, or run "
          + "'imgcache clear' to start over")
    }
  }

  /// Whether a folder of `data/` holds a file.
  private func dataHoldsFiles() throws -> Bool {
    guard let data = try dataDirectory() else { return false }
    for folder in try data.names() where folder.utf8.count == 2 {
      if case .directory(let directory) = try data.child(folder), try !directory.names().isEmpty {
        return true
      }
    }
    return false
  }

  /// Takes the per-cache clean lock or throws `.busy`.
  func acquireCleanLock() throws -> FileLock {
    guard let lock = try FileLock(path: layout.cleanLockPath) else {
      throw CacheError(.busy, "another clean or clear of \(layout.rootPath) is running")
    }
    return lock
  }

  /// Deletes the expired entries, a batch per write transaction (least recently used first),
  /// each batch's files unlinked inside its transaction before its rows are deleted.
  private func expire(policy: CleanPolicy, at time: Date, into tally: CleanTally) throws {
    while true {
      var skipped = [String]()
      // The files go inside the transaction, before their rows: on a full disk, the room the
      // index needs to forget the rows is there by the commit (and on a retry).
      let batch = try freeingRoom {
        try index.transaction { tx in
          let rows = try tx.expiredEntries(
            maxAge: policy.maxAge, at: time, limit: Self.cleanBatchSize)
          skipped = try unlinkData(rows.map(\.file))
          try tx.delete(rows, counting: [.evictionsAge: Int64(rows.count)])
          return rows
        }
      }
      tally.report.noteForeign(skipped)
      for row in batch { tally.note(.expired(RemovedEntry(row))) }
      if batch.count < Self.cleanBatchSize { return }
    }
  }

  /// Deletes least recently used entries until the goal is met, a batch of rows considered
  /// per write transaction against the totals inside it; the victims' files are unlinked
  /// inside the transaction before their rows are deleted.
  private func trim(policy: CleanPolicy, into tally: CleanTally) throws {
    let goal = TrimGoal(policy: policy, totals: try totals())
    while true {
      var skipped = [String]()
      let (batch, exhausted) = try freeingRoom {
        try index.transaction { tx in
          let rows = try tx.leastRecentlyUsed(limit: Self.cleanBatchSize)
          let chosen = goal.victims(of: rows, from: try tx.totals())
          let victims = chosen.map(\.0)
          skipped = try unlinkData(victims.map(\.file))
          try tx.delete(
            victims,
            counting: Dictionary(chosen.map { ($0.1, Int64(1)) }, uniquingKeysWith: +))
          return (victims, rows.count < Self.cleanBatchSize)
        }
      }
      tally.report.noteForeign(skipped)
      for row in batch { tally.note(.trimmed(RemovedEntry(row))) }
      if batch.isEmpty || exhausted { return }
    }
  }

  /// Makes rows equal files, one folder at a time under the write lock: files without a row are
  /// removed, rows without a file are dropped. A folder that is a link is reported, never
  /// entered (its rows stay). A dry run reads in a read transaction and changes nothing.
  func reconcileFiles(dryRun: Bool) throws
    -> (orphans: CountedExamples, missing: CountedExamples, foreign: [String])
  {
    var orphans = CountedExamples()
    var missing = CountedExamples()
    var foreign = [String]()
    guard let data = try dataDirectory() else { return (orphans, missing, []) }
    for folder in try data.names().sorted() where folder.utf8.count == 2 {
      guard case .directory(let directory) = try data.child(folder) else {
        foreign.append("data/" + folder)
        continue
      }
      let reconcile = { (tx: IndexTransaction) throws -> ([String], [String]) in
        // Listed inside the transaction: a listing taken before it misses a file another
        // process stores meanwhile, and its new row would be dropped as missing (an orphan).
        let onDisk = Set(try directory.names().map { folder + "/" + $0 })
        let indexed = try tx.files(inFolder: folder)
        let orphans = onDisk.subtracting(indexed).sorted()
        if !dryRun {
          for file in orphans { try directory.unlink(String(file.dropFirst(3))) }
          try tx.increment([.orphansSwept: Int64(orphans.count)])
        }
        let goneFiles = indexed.subtracting(onDisk)
        guard !goneFiles.isEmpty else { return (orphans, []) }
        let gone = try tx.entries(withFiles: goneFiles)
        if !dryRun { try tx.delete(gone) }
        return (orphans, gone.map(\.file))
      }
      let (found, gone) =
        dryRun
        ? try index.readTransaction(orIfMissing: ([], []), reconcile)
        : try freeingRoom { try index.transaction(reconcile) }
      orphans.add(contentsOf: found)
      missing.add(contentsOf: gone)
    }
    return (orphans, missing, foreign)
  }
}
