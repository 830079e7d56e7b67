import CSQLite
import Dispatch
import FoundationEssentials
import Synchronization

/// What waits in memory for the index (``PendingWrites``): counts, and the uses of entries,
/// which are written in the background once many or old enough, and when the index closes.
/// Written alone, they wait at most ``Index/usesBusyBudget`` for another process's write lock
/// (docs/design.md, Processes).
extension Index {
  /// Notes `counts` for the next write transaction (see ``Counter``), and `named` counters.
  package func note(_ counts: [Counter: Int64], named: [String: Int64] = [:]) {
    noted.withLock { noted in
      noted.add(counts: counts)
      noted.named.merge(named.filter { $0.value != 0 }, uniquingKeysWith: +)
    }
  }

  /// Notes a use of each of `keys` at `time` (with `counts`), written with the next write
  /// transaction, or in the background when the uses waiting are many or old enough
  /// (``PendingWrites``, ``writeNotedInBackground()``).
  package func noteUses(
    of keys: [(key: String, digest: KeyDigest)], at time: Date, counts: [Counter: Int64]
  ) {
    let now = ContinuousClock.now
    let due = noted.withLock { noted in
      noted.add(counts: counts)
      noted.addUses(of: keys, at: time.timeIntervalSince1970, now: now)
      return noted.usesAreDue(at: now) && noted.writing == nil
    }
    if due { writeNotedInBackground() }
  }

  /// Runs `read` (rows of entries) and folds this process's uses not yet committed into what
  /// it returns with `fold`: those waiting and those a write in the background is writing. A
  /// write that commits meanwhile would have its uses in the rows read and in `writing` at
  /// once, or in neither: then the rows are read again, once that write has ended.
  func foldingUnwrittenUses<T>(
    _ read: () throws -> T, fold: (T, PendingWrites.Unwritten) -> T
  ) rethrows -> T {
    var retries = 0
    while true {
      let before = noted.withLock { $0.commits }
      let rows = try read()
      let (unwritten, after) = noted.withLock { ($0.unwritten, $0.commits) }
      // After three commits in a row during reads, what the last read saw is close enough.
      if (before == after && before % 2 == 0) || retries == 3 {
        return unwritten.isEmpty ? rows : fold(rows, unwritten)
      }
      retries += 1
      waitForBackgroundWrite()
    }
  }

  /// Merges every use recorded so far into the entries' rows — this process's waiting uses
  /// and those every process wrote to `entry_use` (``EntryUses``) — before the LRU order or
  /// the use counts are read in bulk. Writes nothing when there is none to merge. `briefly`:
  /// waits at most ``Index/usesBusyBudget`` for another process's write
  /// (``writeNotedBriefly(waitingAtMost:then:)``).
  func mergeUses(briefly: Bool = false) throws {
    guard exists else { return }
    waitForBackgroundWrite()
    let waiting = noted.withLock { !$0.uses.isEmpty }
    guard try waiting || journal.hasContent || read(orIfMissing: false, EntryUses.anyRecorded)
    else { return }
    guard briefly else { return try write(EntryUses.merge) }
    try writeNotedBriefly(then: EntryUses.merge)
  }

  /// Writes what is noted, then `body`, waiting at most `budget` milliseconds for another
  /// process's write lock: through the direct connection while this process has no pool
  /// (opening one may itself wait), else through the pool. Another process's lock held past
  /// `budget` leaves what is noted waiting, and is no error.
  func writeNotedBriefly(
    waitingAtMost budget: Int = usesBusyBudget,
    then body: (SQLiteConnection) throws -> Void = { _ in }
  ) throws {
    switch writeNotedDirectly(waitingAtMost: budget, then: body) {
    case .written, .busy: return
    case .unavailable:
      try withNoted { pending in
        try writeBriefly(waitingAtMost: budget) { db in
          try self.write(pending, db)
          try body(db)
        }
      }
    }
  }

  /// Writes `pending` in `db`'s write transaction, with what the use journal holds
  /// (``UseJournal``): every write transaction takes the journal, emptied once it commits.
  func write(_ pending: PendingWrites, _ db: SQLiteConnection) throws {
    try pending.write(db)
    guard let taken = journal.take(now: Date()) else { return }
    db.whenTransactionEnds { committed in taken.end(committed: committed) }
    try taken.pending.write(db, tallied: false)
  }

  /// Leaves what is noted in the use journal instead of writing it, when this process only
  /// read (it has no pool: a hit); true when it is there (``UseJournal/append(_:)``).
  func journalNoted() -> Bool {
    guard connections.withLock({ $0.pool == nil }) else { return false }
    let pending = noted.withLock { $0.take() }
    guard journal.append(pending) else {
      noted.withLock { $0.merge(pending) }
      return false
    }
    CounterTally.committed(pending.counts)
    return true
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

  /// Writes what waits in the background, one write at a time: through the direct connection
  /// when this process has no pool (its page cache stays valid: a commit by another
  /// connection would make it read every page again), through the pool otherwise. The hits go
  /// on meanwhile: a warm prefetch prepares its next batch, a co-process waits for its next
  /// line. The uses it takes stay folded into this process's reads (``PendingWrites/writing``)
  /// until it commits; when it fails they wait again, for the next write.
  func writeNotedInBackground() {
    let pending: PendingWrites? = noted.withLock { noted in
      guard noted.writing == nil else { return nil }
      let taken = noted.take()
      noted.writing = taken.uses
      return taken
    }
    guard let pending else { return }
    background.async { [self] in
      if (try? writeInBackground(pending)) == nil { settle(failed: pending) }
    }
  }

  /// Ends a write in the background: `writing` emptied, the commit count even again, and
  /// what a failed write took noted again.
  private func settle(failed: PendingWrites? = nil) {
    noted.withLock { noted in
      noted.writing = nil
      noted.commits = (noted.commits | 1) + 1
      if let failed { noted.failed(failed, at: .now) }
    }
  }

  /// Writes `pending` on the background queue and settles it once committed: through the
  /// direct connection while this process has no pool, else through the pool (an index too
  /// old for the direct connection was migrated by the pool its reads opened). Either way,
  /// another process's write lock held past ``usesBusyBudget`` fails it (the caller notes
  /// `pending` again).
  private func writeInBackground(_ pending: PendingWrites) throws {
    // The commit is marked (an odd count) from inside its transaction until `writing` is
    // emptied: reads that overlap it read again (``foldingUnwrittenUses(_:fold:)``). On the
    // direct connection it is settled before the connection serves the next lookup, so its
    // lookups never overlap it.
    let write = { (db: SQLiteConnection) throws in
      try self.write(pending, db)
      self.noted.withLock { $0.commits += 1 }
    }
    if let direct = connections.withLock({ $0.pool == nil ? $0.direct : nil }) {
      do {
        try Self.writeUses(through: direct, write, committed: { settle() })
        return
      } catch let error as SQLiteError where error.code == SQLITE_BUSY {
        // Another process writes: these wait for a later write, and the lookups go on.
        throw error
      } catch {}
    }
    noted.withLock { if $0.commits % 2 == 1 { $0.commits += 1 } }
    try writeBriefly(write)
    settle()
  }

  /// Runs `body` (a write of uses and counts alone) in an IMMEDIATE transaction of the pool
  /// when it is open, waiting at most `budget` milliseconds for another process's write lock.
  /// Writes nothing noted: the caller passes what it takes.
  func writeBriefly(
    waitingAtMost budget: Int = usesBusyBudget, _ body: (SQLiteConnection) throws -> Void
  ) throws {
    // Opening a pool may itself wait for the lock (setting WAL mode up writes): only one
    // already open is used.
    guard let pool = connections.withLock({ $0.pool }) else {
      throw CacheError(.busy, "the index has no connection open for writing")
    }
    try pool.write { db in
      try Self.waitingBriefly(db, budget) {
        try db.transaction(.immediate) { try body(db) }
      }
    }
  }

  /// Runs `body` with the connection's busy timeout lowered to `budget` milliseconds.
  static func waitingBriefly(_ db: SQLiteConnection, _ budget: Int, _ body: () throws -> Void)
    throws
  {
    try db.execute(sql: "PRAGMA busy_timeout = \(budget)")
    defer { _ = try? db.execute(sql: "PRAGMA busy_timeout = \(Int(busyTimeout) * 1000)") }
    try body()
  }

  /// What a write through the direct connection came to.
  enum DirectWrite: Equatable {
    case written
    /// Another process held the write lock past ``usesBusyBudget``: what was noted waits.
    case busy
    /// A pool is open, or the write failed otherwise (an index too old for it): use the pool
    /// if one is open (``writeBriefly(_:)``).
    case unavailable
  }

  /// Writes what is noted, then `body`, through the direct connection when no pool was opened:
  /// a process that only read (a hit) records its uses without the pool, waiting at most
  /// `budget` milliseconds for another process's write (what it could not write is noted
  /// again).
  /// The direct connection read the current rows through `entry_use`, so the tables written
  /// exist; an index too old to have them fails here (reads of it opened the pool, which
  /// migrated it, and the caller writes through that pool; when this process read nothing,
  /// what is noted is dropped and the next process that writes migrates it).
  func writeNotedDirectly(
    waitingAtMost budget: Int = usesBusyBudget,
    then body: (SQLiteConnection) throws -> Void = { _ in }
  ) -> DirectWrite {
    // A process whose lookups found no index (created since) opens the direct connection here.
    guard connections.withLock({ $0.pool == nil }), let direct = directQueue() else {
      return .unavailable
    }
    do {
      try withNoted { pending in
        try Self.writeUses(through: direct, waitingAtMost: budget) { db in
          try self.write(pending, db)
          try body(db)
        }
      }
      return .written
    } catch let error as SQLiteError where error.code == SQLITE_BUSY {
      return .busy
    } catch {
      return .unavailable
    }
  }

  /// Runs `body` (a write of uses and counts) in one IMMEDIATE transaction of `connection`
  /// (not the pool's), then `committed`, before the connection serves anything else. Waits
  /// at most `budget` milliseconds for the write lock: the connection's lookups wait meanwhile.
  static func writeUses(
    through connection: SQLiteQueue, waitingAtMost budget: Int = usesBusyBudget,
    _ body: (SQLiteConnection) throws -> Void,
    committed: () -> Void = {}
  ) throws {
    try connection.access { db in
      try db.execute(sql: Self.synchronousNormal)
      try waitingBriefly(db, budget) {
        try db.transaction(.immediate) { try body(db) }
      }
      committed()
    }
  }
}
