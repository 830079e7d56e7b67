import Dispatch
import Synchronization

/// A database in WAL mode shared by one writing connection and up to ``maxReaders`` reading
/// ones, each opened when first needed: readers see the last commit and never wait for the
/// writer (docs/architecture.md, Start-up).
package final class SQLitePool: Sendable {
  /// The most readers open at once; a read beyond them waits for one.
  package static let maxReaders = 4

  /// The writing connection.
  package let writer: SQLiteQueue
  private let path: String
  private let readerOptions: SQLiteOptions
  private let label: String
  private let idle = Mutex([SQLiteQueue]())
  private let all = Mutex([SQLiteQueue]())
  private let slots = DispatchSemaphore(value: SQLitePool.maxReaders)

  /// Opens `path` (created when missing) in WAL mode, `options.prepare` run on every
  /// connection (the readers' read-only).
  package init(path: String, options: SQLiteOptions, label: String) throws {
    var writing = options
    let prepare = options.prepare
    writing.prepare = { connection in
      try connection.execute(sql: "PRAGMA journal_mode = WAL")
      try prepare(connection)
    }
    writer = try SQLiteQueue(path: path, options: writing, label: label + ".writer")
    var reading = options
    reading.readOnly = true
    readerOptions = reading
    self.path = path
    self.label = label
  }

  /// Runs `body` on the writer, outside any transaction (the caller opens its own).
  package func write<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
    try writer.access(body)
  }

  /// Runs `body` on a reader in a deferred transaction (one snapshot throughout).
  package func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    try withReader { try $0.read(body) }
  }

  /// Runs `body` on a reader outside a transaction: each statement sees the last commit.
  package func unsafeRead<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    try withReader { try $0.access(body) }
  }

  /// Frees what memory the connections can do without.
  package func releaseMemory() {
    for queue in all.withLock({ $0 }) { queue.access { $0.releaseMemory() } }
  }

  /// Closes the readers, then the writer (the last connection to close removes the WAL).
  package func close() {
    for queue in all.withLock({ $0 }) { queue.close() }
    writer.close()
  }

  private func withReader<T>(_ body: (SQLiteQueue) throws -> T) throws -> T {
    slots.wait()
    defer { slots.signal() }
    let reader = try idle.withLock { $0.popLast() } ?? openReader()
    defer { idle.withLock { $0.append(reader) } }
    return try body(reader)
  }

  private func openReader() throws -> SQLiteQueue {
    let reader = try SQLiteQueue(path: path, options: readerOptions, label: label + ".reader")
    all.withLock { $0.append(reader) }
    return reader
  }
}
