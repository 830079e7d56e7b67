import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// The SQLite index of one cache directory (docs/design.md, On disk): its connections and
/// transactions. Every SQL statement of imgcache lives in this folder; callers see records and
/// totals.
///
/// A process that has not written reads through one direct connection (it opens faster: no
/// pool, no WAL set-up, no migration check); the first write opens a pool, creating the cache
/// and migrating the schema. A process that only read (a hit) writes its uses and counts
/// through the direct connection when it closes, and never opens the pool.
///
/// Lock rule: `connections` guards two slots, `noted` a dictionary and `prepared` the direct
/// connection's statements, and nothing else. They are never held while opening a database,
/// migrating, running a transaction or calling any closure.
package final class Index: Sendable {
  /// `$DIR/index.sqlite`.
  package let path: String
  private let createDirectories: @Sendable () throws -> Void
  let connections = Mutex<Connections>(Connections())
  /// Counts and uses noted in memory, written by the next write transaction (Index+Noted).
  let noted = Mutex(PendingWrites())
  /// Where waiting uses are written in the background, one write at a time (Index+Noted).
  let background = DispatchQueue(label: "imgcache.index.uses")
  /// The direct connection's statements, prepared once (``statement(_:_:sql:)``).
  let prepared = Mutex(PreparedStatements())

  struct Connections {
    var pool: SQLitePool?
    var direct: SQLiteQueue?
  }

  /// The index at `path`; `createDirectories` makes the cache's folders before the first write.
  package init(path: String, createDirectories: @escaping @Sendable () throws -> Void) {
    self.path = path
    self.createDirectories = createDirectories
    IndexRoom.register(reserve: reservePath)
  }

  /// `$DIR/index.sqlite-uses`: the uses and counts of processes that only read
  /// (``UseJournal``).
  var journal: UseJournal { UseJournal(path: path + "-uses") }

  /// `$DIR/index.sqlite-reserve`: room kept for the index on a full disk (``IndexRoom``).
  var reservePath: String { path + "-reserve" }

  /// Takes the index's reserve again when it was given up and there is room (``IndexRoom``).
  package func keepReserve() { IndexRoom.keepReserve(at: reservePath) }

  /// Gives up the index's reserve, so that a write freeing room has room to start.
  package func releaseReserve() { IndexRoom.releaseReserves() }

  /// Whether the index file exists (the cache was ever written).
  package var exists: Bool {
    connections.withLock { $0.pool != nil } || access(path, F_OK) == 0
  }

  /// The sync level of every connection that writes. WAL with NORMAL sync: commits are atomic
  /// and the index never corrupts; only the last transactions before a power loss may be lost,
  /// which a cache tolerates.
  static let synchronousNormal = "PRAGMA synchronous = NORMAL"

  /// The page cache of the direct connection, which reads (and records) many entries in a
  /// row: 16 MiB, taken only as pages are read. SQLite's default (2 MiB) held a tenth of a
  /// 100,000-entry index, and a warm prefetch of it read a page from the kernel for almost
  /// every URL (89,000 `pread`s, a sixth of its time; 10,000 with this).
  static let largePageCache = "PRAGMA cache_size = -16384"

  /// How long a connection waits for another process's lock: a store waits this long for a
  /// long write of another process (a clean) rather than lose its download.
  static let busyTimeout: Double = 60

  /// How long a write of uses and counts alone waits for another process's write lock, in
  /// milliseconds (docs/design.md, Processes): a hit never waits for a writer longer than
  /// this. What it could not write waits for the next write, or is dropped when the process
  /// ends.
  static let usesBusyBudget = 200

  /// The writable pool, opened (and the cache created) on first use.
  package func writer() throws -> SQLitePool {
    if let pool = connections.withLock({ $0.pool }) { return pool }
    do {
      try createDirectories()
      _ = IndexRoom.installed
      var options = SQLiteOptions()
      options.busyTimeout = Self.busyTimeout
      options.prepare = { db in
        try db.execute(sql: Self.synchronousNormal)
        CounterTally.watch(db)
      }
      // Opening sets WAL mode and may migrate: threads and processes take turns on an flock
      // (a file lock, released by the kernel if the holder dies), never on an in-process lock.
      let turn = try FileLock(waitingFor: path + ".migrate-lock")
      let opened = try SQLitePool(path: path, options: options, label: "imgcache.index")
      try IndexSchema.migrate(opened)
      withExtendedLifetime(turn) {}
      // Two threads may have opened one each; the first stored wins, the other is dropped.
      return connections.withLock { state in
        if let pool = state.pool { return pool }
        state.pool = opened
        return opened
      }
    } catch {
      throw failure("cannot open the index", error)
    }
  }

  /// Runs `body` in a read transaction; returns `empty` when the cache does not exist.
  func read<T>(orIfMissing empty: T, _ body: (SQLiteConnection) throws -> T) throws -> T {
    do {
      return try makingRoomForSharedMemory(writing: false, body) {
        if let pool = connections.withLock({ $0.pool }) { return try pool.read(body) }
        if access(path, F_OK) != 0 { return empty }
        // An index older than this program cannot be read as it is (a table or column
        // missing, however many reads succeeded before): open the pool to migrate, then read
        // again.
        if let direct = directQueue(),
          case .success(let value) = Result(catching: { try direct.read(body) })
        {
          return value
        }
        return try writer().read(body)
      }
    } catch {
      throw failure("cannot read the index", error)
    }
  }

  /// Runs `body`, lookups of independent rows, outside a transaction: each statement reads
  /// the latest commit. The hit path's read, several times cheaper than ``read(orIfMissing:_:)``
  /// (no BEGIN/COMMIT, no read-only toggling, no reader pool), on the direct connection even
  /// after this process has written. Returns `empty` when the cache does not exist.
  func peek<T>(orIfMissing empty: T, _ body: (SQLiteConnection) throws -> T) throws -> T {
    do {
      return try makingRoomForSharedMemory(writing: false, body) {
        let opened = connections.withLock { $0.direct }
        if opened == nil && access(path, F_OK) != 0 { return empty }
        // As in ``read(orIfMissing:_:)``: an older index is migrated by the pool, then read.
        if let direct = opened ?? directQueue(),
          case .success(let value) = Result(catching: { try direct.access(body) })
        {
          return value
        }
        return try writer().unsafeRead(body)
      }
    } catch {
      throw failure("cannot read the index", error)
    }
  }

  /// Runs `body` in an IMMEDIATE write transaction, creating the cache when needed. The
  /// counts noted so far are added in the same transaction (and noted again if it fails).
  /// When the transaction fails, `undo` runs before it is rolled back, while the write lock is
  /// still held: file work done inside it (a body renamed into `data/`) is undone before
  /// another process may look.
  func write<T>(undoing undo: @escaping () -> Void = {}, _ body: (SQLiteConnection) throws -> T)
    throws
    -> T
  {
    do {
      return try withNoted { pending in
        try withoutActuallyEscaping(body) { body in
          let run = { (db: SQLiteConnection) throws -> T in
            try db.execute(sql: "BEGIN IMMEDIATE")
            do {
              // The waiting uses first: a clean in this transaction merges them (EntryUses).
              try self.write(pending, db)
              let value = try body(db)
              try db.commit()
              return value
            } catch {
              undo()
              db.rollback()
              throw error
            }
          }
          return try makingRoomForSharedMemory(writing: true, run) {
            try writer().write(run)
          }
        }
      }
    } catch {
      throw failure("cannot update the index", error)
    }
  }

  /// Runs `body` with the counts and uses noted so far, taken out of `noted`; they are noted
  /// again when `body` throws (its transaction did not write them).
  func withNoted<T>(_ body: (PendingWrites) throws -> T) throws -> T {
    let pending = noted.withLock { $0.take() }
    do {
      return try body(pending)
    } catch {
      noted.withLock { $0.merge(pending) }
      throw error
    }
  }

  /// Runs `body` in a write transaction when the cache exists; returns `empty` when it does not.
  func writeIfExists<T>(orIfMissing empty: T, _ body: (SQLiteConnection) throws -> T) throws -> T {
    guard exists else { return empty }
    return try write(body)
  }

  /// Checkpoints the WAL into `index.sqlite` and closes the connections, so a copy of the
  /// file alone is complete; the next use opens them again. Counts and uses still noted are
  /// left in the use journal by a process that only read (``journalNoted()``), else written
  /// first, waiting at most ``usesBusyBudget`` for another process's write (else dropped).
  /// Called when a command ends.
  package func close() {
    waitForBackgroundWrite()
    // Right after a write failed (another process's lock, most likely), one try that does not
    // wait: dropped if the lock is still held.
    let (empty, due) = noted.withLock { ($0.isEmpty, $0.notBefore.map { .now >= $0 } ?? true) }
    let budget = due ? Self.usesBusyBudget : 0
    if !empty && exists && !journalNoted() { try? writeNotedBriefly(waitingAtMost: budget) }
    let (pool, direct) = takeConnections()
    // The direct connection first: the pool's last connection can then remove the WAL.
    direct?.close()
    if let pool {
      // PASSIVE never waits for other processes; closing the last connection removes the WAL
      // and its -shm, but only when that connection can write: the pool closes its
      // (read-only) readers before its writer.
      _ = try? pool.write { try $0.checkpoint() }
      pool.releaseMemory()
      pool.close()
    }
  }

  /// Takes this process's connections out of their slots (the next use opens them again),
  /// the direct connection's statements finalized first, outside the lock: one left would
  /// keep it open. The caller closes them.
  func takeConnections() -> (pool: SQLitePool?, direct: SQLiteQueue?) {
    let taken = connections.withLock { state in
      defer { state = Connections() }
      return (state.pool, state.direct)
    }
    let statements = prepared.withLock { prepared in
      defer { prepared = PreparedStatements() }
      return prepared
    }
    withExtendedLifetime(statements) {}
    return taken
  }

  /// The direct connection of a process that has not written, opened once: read-write (read
  /// only when the file is), without the pool's WAL set-up or migration check.
  func directQueue() -> SQLiteQueue? {
    if let direct = connections.withLock({ $0.direct }) { return direct }
    _ = IndexRoom.installed
    var options = SQLiteOptions()
    options.busyTimeout = Self.busyTimeout
    options.prepare = { db in
      try db.execute(sql: Index.largePageCache)
      CounterTally.watch(db)
    }
    guard
      let opened = try? SQLiteQueue(path: path, options: options, label: "imgcache.index.direct")
    else { return nil }
    let database = opened.access { ObjectIdentifier($0) }
    let (direct, stored) = connections.withLock { state in
      if let direct = state.direct { return (direct, false) }
      state.direct = opened
      return (opened, true)
    }
    if stored { prepared.withLock { $0 = PreparedStatements(database: database) } }
    return direct
  }
}
