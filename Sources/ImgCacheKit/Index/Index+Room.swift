import CSQLite
import FoundationEssentials
import Synchronization

/// Reads and writes when SQLite finds no room for the index's shared memory (docs/design.md, A
/// full disk): the reserves given up and one more try, then a connection without shared
/// memory.
extension Index {
  /// Whether `error` says SQLite could not get room for the index's shared memory: its
  /// one-byte writes that grow the file failed, or ``IndexRoom`` refused the mapping.
  static func sharedMemoryRefused(in error: any Error) -> Bool {
    guard let code = databaseError(in: error)?.extendedCode else { return false }
    return code == SQLiteError.sharedMemorySize
      || (code == SQLiteError.sharedMemoryMap && IndexRoom.refusedMapping.load(ordering: .relaxed))
  }

  /// Runs `attempt`; when SQLite found no room for the index's shared memory, gives up the
  /// reserves and runs it once more, and when there is still none, runs `body` on a connection
  /// of its own without shared memory (``withoutSharedMemory(writing:_:)``). A write's `body`
  /// undoes its own file work when its transaction fails, so running it again is safe.
  func makingRoomForSharedMemory<T>(
    writing: Bool, _ body: (SQLiteConnection) throws -> T, _ attempt: () throws -> T
  ) throws -> T {
    do {
      return try attempt()
    } catch  where Self.sharedMemoryRefused(in: error) {
      if IndexRoom.releaseReserves() {
        do {
          return try attempt()
        } catch  where Self.sharedMemoryRefused(in: error) {}
      }
      return try withoutSharedMemory(writing: writing, body)
    }
  }

  /// How long the connection without shared memory waits for the other connections to the
  /// index to close: it needs the file to itself.
  static let exclusiveBusyTimeout: Double = 1

  /// Runs `body` on a connection of its own that needs no shared memory, for when there is no
  /// room for it: in the EXCLUSIVE locking mode set before its first access, SQLite keeps the
  /// WAL's index in heap memory. It needs the index to itself: this process's connections are
  /// closed first, and when another process has the index open it gives up after
  /// ``exclusiveBusyTimeout`` (busy). It closes right after `body` (which begins and ends its
  /// own transaction when `writing`).
  func withoutSharedMemory<T>(writing: Bool, _ body: (SQLiteConnection) throws -> T) throws -> T {
    dropConnections()
    var options = SQLiteOptions()
    options.busyTimeout = Self.exclusiveBusyTimeout
    options.prepare = { db in
      try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
      try db.execute(sql: Self.synchronousNormal)
      CounterTally.watch(db)
    }
    let queue = try SQLiteQueue(path: path, options: options, label: "imgcache.index.exclusive")
    defer { queue.close() }
    return try writing ? queue.access(body) : queue.read(body)
  }

  /// Closes this process's connections (their statements first); the next use opens them
  /// again.
  func dropConnections() {
    let (pool, direct) = takeConnections()
    direct?.close()
    pool?.close()
  }
}
