import FoundationEssentials

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

  /// What a clean would do, computed without changing anything. The numbers come from one
  /// snapshot of the index (``Index/cleanPlan(maxAge:at:trimsWhile:)``); the entries, when the
  /// caller wants them, are then read in pages of ``cleanBatchSize`` in the same order and
  /// handed over between reads, never inside one (a snapshot held while a slow reader of `-v`
  /// takes its lines would keep the WAL from being checkpointed).
  func planClean(policy: CleanPolicy, at time: Date, into tally: CleanTally) throws {
    let plan = try index.cleanPlan(maxAge: policy.maxAge, at: time) { survivors, remaining in
      !TrimGoal(policy: policy, totals: survivors).isMet(by: remaining)
    }
    tally.report.expiredTotal = RemovalTotal(
      entries: plan.expired.entries, bytes: plan.expired.bytes)
    tally.report.trimmedTotal = RemovalTotal(
      entries: plan.trimmed.entries, bytes: plan.trimmed.bytes)
    tally.report.remaining = plan.remaining
    if tally.wantsEntries {
      for (expiring, count) in [(true, plan.expired.entries), (false, plan.trimmed.entries)] {
        var (handed, after) = (0, Index.CleanPosition?.none)
        while handed < count {
          let page = try index.cleanCandidates(
            maxAge: policy.maxAge, at: time, expiring: expiring, after: after,
            limit: min(Self.cleanBatchSize, count - handed))
          guard let last = page.last else { break }
          for entry in page.entries {
            let removed = RemovedEntry(entry)
            tally.hand(expiring ? .expired(removed) : .trimmed(removed))
          }
          (handed, after) = (handed + page.entries.count, last)
        }
      }
    }
    tally.report.staleTemporaries.add(contentsOf: try yieldPartials(policy: policy, dryRun: true))
    _ = try sweepAndReconcile(into: &tally.report, policy: policy, at: time, dryRun: true)
  }
}

/// What a clean removed so far, and where each removal goes as it happens: the totals, the
/// report's lists (only when listing) and the caller's `onRemoved`.
final class CleanTally {
  var report: CleanReport
  private let listing: Bool
  private let onRemoved: ((CleanRemoval) -> Void)?

  init(dryRun: Bool, listing: Bool, onRemoved: ((CleanRemoval) -> Void)?) {
    report = CleanReport(dryRun: dryRun)
    self.listing = listing
    self.onRemoved = onRemoved
  }

  /// Whether anyone wants the entries themselves, not only their totals.
  var wantsEntries: Bool { listing || onRemoved != nil }

  /// Counts `removal` in the totals, then hands it over (``hand(_:)``).
  func note(_ removal: CleanRemoval) {
    switch removal {
    case .expired(let entry): report.expiredTotal.add(entry)
    case .trimmed(let entry): report.trimmedTotal.add(entry)
    }
    hand(removal)
  }

  /// Hands `removal` to the report's lists (when listing) and to the caller.
  func hand(_ removal: CleanRemoval) {
    if listing {
      switch removal {
      case .expired(let entry): report.expired.append(entry)
      case .trimmed(let entry): report.trimmed.append(entry)
      }
    }
    onRemoved?(removal)
  }
}
