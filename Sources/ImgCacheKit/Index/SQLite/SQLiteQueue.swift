import Dispatch
import Glibc
import Synchronization

/// How a connection is opened: its busy timeout, whether it only reads, and the statements
/// run on it once opened (pragmas).
package struct SQLiteOptions: Sendable {
  /// Seconds another connection's lock is waited for.
  package var busyTimeout: Double = 5
  /// Opened read-only.
  package var readOnly = false
  /// Run on each connection once it is open.
  package var prepare: @Sendable (SQLiteConnection) throws -> Void = { _ in }

  /// A busy timeout of five seconds, read-write, nothing run on opening.
  package init() {}
}

/// One connection, used by one thread at a time: each access runs on the caller's thread
/// inside a serial queue's `sync` (no other thread, no hop). Not reentrant: an access from
/// inside another of the same queue would wait for itself.
// @unchecked: the connection (a C handle and its statement cache) is only touched inside `queue.sync`.
package final class SQLiteQueue: @unchecked Sendable {
  private let connection: SQLiteConnection
  private let queue: DispatchQueue
  /// The thread inside an access (`pthread_self`), 0 when none: an access from inside another
  /// is refused instead of waiting for itself. Not a `DispatchSpecificKey`: a queue with one
  /// releases its value on a thread of its own when it goes, a thread every hit started.
  private let inside = Atomic<UInt>(0)

  /// Opens `path` with `options`, their `prepare` run first.
  package init(path: String, options: SQLiteOptions, label: String) throws {
    connection = try SQLiteConnection(
      path: path, readOnly: options.readOnly, busyTimeout: options.busyTimeout)
    queue = DispatchQueue(label: label)
    try options.prepare(connection)
  }

  /// Runs `body` with the connection, alone.
  package func access<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
    let thread = UInt(pthread_self())
    precondition(
      inside.load(ordering: .relaxed) != thread,
      "an SQLite connection's access from inside another: it would wait for itself")
    return try queue.sync {
      inside.store(thread, ordering: .relaxed)
      defer { inside.store(0, ordering: .relaxed) }
      return try body(connection)
    }
  }

  /// Runs `body` in a deferred transaction: one snapshot of the database throughout.
  package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    try access { connection in try connection.transaction(.deferred) { try body(connection) } }
  }

  /// Closes the connection; statements still held finalize it when released.
  package func close() {
    access { $0.close() }
  }
}
