import FoundationEssentials
import ImgCacheUntrusted

/// Changes that wait in memory for the index's next write transaction: counts that have no
/// write of their own (lookups, misses, refusals) and the uses of entries (last access, use
/// count). A stream of hits — `fetch -i`, a warm prefetch — then costs one write per
/// ``maxUses`` hits or per ``maxDelay``, not one each, and that write adds to the narrow
/// `entry_use` table (``EntryUses``), never rewriting an entry's row. They are written by any
/// write transaction, when due, before the LRU order is read (`list`, `clean`), and when the
/// index closes (left in the use journal by a process that only read, ``UseJournal``); a
/// process killed with SIGKILL loses at most that much LRU precision.
package struct PendingWrites {
  /// Uses waiting at most this many before they are written.
  static let maxUses = 256
  /// Uses waiting at most this long before they are written.
  static let maxDelay: Duration = .seconds(1)
  /// The most entries whose uses wait when writes keep failing (a read-only index, another
  /// process's long write): past it a use of one more entry is dropped (LRU precision, never
  /// an entry), so a warm prefetch of millions stays in flat memory (about 10 MiB).
  static let maxWaiting = 100_000

  /// One entry's waiting uses: the latest time and how many.
  struct Use {
    var time: Double
    var count: Int64
    /// The key's digest, how `entry_use` finds the entry (from the entry read: no MD5 again).
    var digest: KeyDigest

    /// Counts one more use, at `time` (one dictionary access a use, not two).
    mutating func add(at time: Double) {
      self.time = time
      count += 1
    }
  }

  var counts = [Counter: Int64]()
  /// Counters named at run time: those of each remote backend (``Counter/remoteName(_:_:)``).
  var named = [String: Int64]()
  var uses = [String: Use]()
  /// When the oldest waiting use was noted.
  var oldestUse: ContinuousClock.Instant?
  /// The uses a write in the background took, until it commits (nil when none runs): still
  /// this process's to fold into what it reads.
  var writing: [String: Use]?
  /// Background writes ended, twice each (odd while one commits): a read of rows that
  /// overlaps a commit is read again (``Index/foldingUnwrittenUses(_:fold:)``).
  var commits = 0
  /// After a failed write, no other before this (a read-only index fails every one).
  var notBefore: ContinuousClock.Instant?

  package var isEmpty: Bool { counts.isEmpty && named.isEmpty && uses.isEmpty }

  /// Whether the waiting uses should be written now.
  func usesAreDue(at now: ContinuousClock.Instant) -> Bool {
    guard let oldestUse, notBefore.map({ now >= $0 }) ?? true else { return false }
    return uses.count >= Self.maxUses || now - oldestUse >= Self.maxDelay
  }

  /// What waits, taken out for a write; the uses being written stay (``writing``).
  mutating func take() -> PendingWrites {
    var taken = self
    taken.writing = nil
    self = PendingWrites(writing: writing, commits: commits, notBefore: notBefore)
    return taken
  }

  /// Adds back what a write in the background failed to write; the next waits ``maxDelay``.
  mutating func failed(_ pending: PendingWrites, at now: ContinuousClock.Instant) {
    merge(pending)
    notBefore = now + Self.maxDelay
  }

  /// The uses not yet committed (``Unwritten``).
  var unwritten: Unwritten { Unwritten(waiting: uses, writing: writing ?? [:]) }

  /// This process's uses not yet committed: those waiting, those being written.
  struct Unwritten {
    var waiting: [String: Use]
    var writing: [String: Use]

    package var isEmpty: Bool { waiting.isEmpty && writing.isEmpty }

    /// Folds the uses of `entry` in.
    func fold(into entry: inout CacheEntry) {
      if let use = waiting[entry.key] { entry.add(use) }
      if !writing.isEmpty, let use = writing[entry.key] { entry.add(use) }
    }
  }

  mutating func add(counts more: [Counter: Int64]) {
    counts.merge(more.filter { $0.value != 0 }, uniquingKeysWith: +)
  }

  mutating func addUses(
    of keys: [(key: String, digest: KeyDigest)], at time: Double, now: ContinuousClock.Instant
  ) {
    for (key, digest) in keys where uses.count < Self.maxWaiting || uses[key] != nil {
      uses[key, default: Use(time: time, count: 0, digest: digest)].add(at: time)
    }
    if oldestUse == nil && !keys.isEmpty { oldestUse = now }
  }

  /// Adds back what a failed transaction did not write.
  mutating func merge(_ other: PendingWrites) {
    add(counts: other.counts)
    named.merge(other.named, uniquingKeysWith: +)
    for (key, use) in other.uses where uses.count < Self.maxWaiting || uses[key] != nil {
      var merged = uses[key] ?? Use(time: use.time, count: 0, digest: use.digest)
      merged.count += use.count
      merged.time = max(merged.time, use.time)
      uses[key] = merged
    }
    if let other = other.oldestUse { oldestUse = min(oldestUse ?? other, other) }
  }

  /// Writes everything in `db`'s transaction: the uses into `entry_use` (``EntryUses``), a use
  /// of an entry removed meanwhile dropped. `tallied`: the counts are this process's own (its
  /// line of the stats log, ``CounterTally``), not another's taken from the use journal.
  func write(_ db: SQLiteConnection, tallied: Bool = true) throws {
    var pending = uses[...]
    while !pending.isEmpty {
      let chunk = pending.prefix(PaddedBatch.limit)
      pending = pending.dropFirst(chunk.count)
      try EntryUses.record(chunk, db)
    }
    try IndexSchema.increment(counts, db, tallied: tallied)
    try IndexSchema.increment(named: named, db, tallied: tallied)
  }
}

extension CacheEntry {
  /// Folds `use` (this process's waiting uses of the entry) in.
  mutating func add(_ use: PendingWrites.Use) {
    lastAccess = max(lastAccess, Date(timeIntervalSince1970: use.time))
    // Counts read back from a shared file: summed without a trap.
    accessCount = accessCount.addingSaturating(Int(use.count))
  }
}
