import Foundation
import GRDB

/// What waits in memory for the index (``PendingWrites``): counts, and the uses of entries,
/// which are written in the background once many or old enough.
extension Index {
  /// Notes `counts` for the next write transaction (see ``Counter``), and `named` counters.
  func note(_ counts: [Counter: Int64], named: [String: Int64] = [:]) {
    noted.withLock { noted in
      noted.add(counts: counts)
      noted.named.merge(named.filter { $0.value != 0 }, uniquingKeysWith: +)
    }
  }

  /// Notes a use of each of `keys` at `time` (with `counts`), written with the next write
  /// transaction, or in the background when the uses waiting are many or old enough
  /// (``PendingWrites``, ``writeNotedInBackground()``).
  func noteUses(of keys: [String], at time: Date, counts: [Counter: Int64]) {
    let now = ContinuousClock.now
    let due = noted.withLock { noted in
      noted.add(counts: counts)
      noted.addUses(of: keys, at: time.timeIntervalSince1970, now: now)
      return noted.usesAreDue(at: now) && noted.writing == nil
    }
    if due { writeNotedInBackground() }
  }

  /// This process's uses not yet committed: those waiting and those being written (one lock
  /// for a batch; copies that share storage).
  func waitingUses() -> PendingWrites.Unwritten {
    noted.withLock { PendingWrites.Unwritten(waiting: $0.uses, writing: $0.writing ?? [:]) }
  }

  /// `entry` as it will be once this process's uses of it are written.
  func withWaitingUses(_ entry: CacheEntry) -> CacheEntry {
    var entry = entry
    waitingUses().fold(into: &entry)
    return entry
  }

  /// Merges every use recorded so far into the entries' rows — this process's waiting uses
  /// and those every process wrote to `entry_use` (``EntryUses``) — before the LRU order or
  /// the use counts are read in bulk. Writes nothing when there is none to merge.
  func mergeUses() throws {
    guard exists else { return }
    waitForBackgroundWrite()
    let waiting = noted.withLock { !$0.uses.isEmpty }
    guard try waiting || read(orIfMissing: false, EntryUses.anyRecorded) else { return }
    try write(EntryUses.merge)
  }

  /// Forgets the counts noted and not yet written (before zeroing the counters).
  func discardNotedCounts() {
    waitForBackgroundWrite()
    noted.withLock { noted in
      noted.counts = [:]
      noted.named = [:]
    }
  }

  /// Returns once the write in the background, if any, has ended (committed, or failed and
  /// its uses and counts noted again).
  func waitForBackgroundWrite() { background.sync {} }

  /// Writes what waits in the background, one write at a time: through the pool when this
  /// process opened one, otherwise through a connection of its own, so the lookups that go on
  /// meanwhile (on the direct connection, on another core) never wait for it. The uses it
  /// takes stay folded into this process's reads (``PendingWrites/writing``) until it commits;
  /// when it fails they wait again, for the next write.
  func writeNotedInBackground() {
    let pending: PendingWrites? = noted.withLock { noted in
      guard noted.writing == nil else { return nil }
      let taken = noted.take()
      noted.writing = taken.uses
      return taken
    }
    guard let pending else { return }
    background.async { [self] in
      let written = (try? writeInBackground(pending)) != nil
      noted.withLock { noted in
        noted.writing = nil
        if !written { noted.merge(pending) }
      }
    }
  }

  /// Writes `pending` on the background queue. An index too old to have the tables written
  /// fails on the uses connection: the pool, which migrates, writes them then.
  private func writeInBackground(_ pending: PendingWrites) throws {
    if connections.withLock({ $0.pool == nil }), let uses = usesQueue(),
      (try? Self.write(pending, through: uses)) != nil
    {
      return
    }
    try writer().write { db in try pending.write(db) }
  }

  /// The connection that writes uses in the background when there is no pool, opened once.
  private func usesQueue() -> DatabaseQueue? {
    if let uses = connections.withLock({ $0.uses }) { return uses }
    var config = GRDB.Configuration()
    config.busyMode = .timeout(60)
    config.label = "imgcache.index.uses"
    guard let opened = try? DatabaseQueue(path: path, configuration: config) else { return nil }
    return connections.withLock { state in
      if let uses = state.uses { return uses }
      state.uses = opened
      return opened
    }
  }
}
