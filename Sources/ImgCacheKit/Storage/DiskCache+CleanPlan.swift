import Foundation

/// A clean's plan (`--dry-run`) and the goal of its trim, in flat memory.
extension DiskCache {
  /// The bounds a trim works to: it starts only above a limit and stops strictly below
  /// `target × limit`.
  struct TrimGoal {
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

    /// The first of `rows` (in LRU order) to remove until the goal is met, from `totals`, each
    /// with its cause: the size limit while it is exceeded, else the entry limit.
    func victims(of rows: [CacheEntry], from totals: CacheTotals) -> [(CacheEntry, Counter)] {
      var remaining = totals
      var victims = [(CacheEntry, Counter)]()
      for row in rows where !isMet(by: remaining) {
        let overSize = size.map { Double(remaining.allocated) >= $0 } ?? false
        victims.append((row, overSize ? .evictionsSize : .evictionsCount))
        remaining.entries -= 1
        remaining.bytes -= row.size
        remaining.allocated -= row.allocated
      }
      return victims
    }
  }

  /// What a clean would do, computed without changing anything: the entries it would expire
  /// and those it would trim, read in the clean's own order in one read transaction each and
  /// handed to `tally` one at a time.
  func planClean(policy: CleanPolicy, at time: Date, into tally: CleanTally) throws {
    let all = try totals()
    var expired = CacheTotals.zero
    try index.walkCleanCandidates(maxAge: policy.maxAge, at: time, expiring: true) { entry in
      expired.entries += 1
      expired.bytes += entry.size
      expired.allocated += entry.allocated
      tally.note(.expired(RemovedEntry(entry)))
      return true
    }
    var remaining = CacheTotals(
      entries: all.entries - expired.entries, bytes: all.bytes - expired.bytes,
      allocated: all.allocated - expired.allocated)
    let goal = TrimGoal(policy: policy, totals: remaining)
    if !goal.isMet(by: remaining) {
      try index.walkCleanCandidates(maxAge: policy.maxAge, at: time, expiring: false) { entry in
        guard !goal.isMet(by: remaining) else { return false }
        remaining.entries -= 1
        remaining.bytes -= entry.size
        remaining.allocated -= entry.allocated
        tally.note(.trimmed(RemovedEntry(entry)))
        return true
      }
    }
    tally.report.remaining = remaining
    let sweep = try sweepTemporaries(
      before: time.timeIntervalSince1970 - policy.staleTemporaryAge,
      partialsBefore: time.timeIntervalSince1970 - resume.maxAge, dryRun: true)
    tally.report.staleTemporaries =
      try yieldPartials(policy: policy, dryRun: true) + sweep.swept
    let files = try reconcileFiles(dryRun: true)
    (tally.report.orphanFiles, tally.report.missingFiles) = (files.orphans, files.missing)
    tally.report.foreign = Array(Set(sweep.foreign + files.foreign)).sorted()
  }
}

/// What a clean removed so far, and where each removal goes as it happens: the totals, the
/// report's lists (only when listing) and the caller's `onRemoved`.
final class CleanTally {
  var report: CleanReport
  private let listing: Bool
  private let onRemoved: (CleanRemoval) -> Void

  init(dryRun: Bool, listing: Bool, onRemoved: @escaping (CleanRemoval) -> Void) {
    report = CleanReport(dryRun: dryRun)
    self.listing = listing
    self.onRemoved = onRemoved
  }

  func note(_ removal: CleanRemoval) {
    switch removal {
    case .expired(let entry):
      report.expiredTotal.add(entry)
      if listing { report.expired.append(entry) }
    case .trimmed(let entry):
      report.trimmedTotal.add(entry)
      if listing { report.trimmed.append(entry) }
    }
    onRemoved(removal)
  }
}
