import CSQLite

/// One connection to an SQLite database (docs/architecture.md, Start-up): opened with
/// extended result codes and a busy timeout, its statements cached by their SQL. Not
/// thread-safe: it is used inside its owner's serialized access (``SQLiteQueue``).
package final class SQLiteConnection {
  /// How a transaction takes its locks.
  package enum TransactionKind: String, Sendable {
    case deferred = "DEFERRED"
    case immediate = "IMMEDIATE"
    case exclusive = "EXCLUSIVE"
  }

  /// The connection's handle.
  package let handle: OpaquePointer
  /// The file, for messages.
  package let path: String
  private var cached = [String: CompiledStatement]()
  private var closed = false
  /// Whether ``close()`` closes the handle (not when it is borrowed).
  private let owned: Bool

  /// Opens `path` (created when missing, unless `readOnly`); another connection's lock is
  /// waited for up to `busyTimeout` seconds.
  package init(path: String, readOnly: Bool = false, busyTimeout: Double) throws {
    var opened: OpaquePointer?
    let flags =
      (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
      | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &opened, flags, nil)
    guard code == SQLITE_OK, let opened else {
      let error = SQLiteError.last(code, opened)
      sqlite3_close_v2(opened)
      throw SQLiteError(code: error.extendedCode, message: "\(path): \(error.message ?? "")")
    }
    handle = opened
    self.path = path
    owned = true
    sqlite3_extended_result_codes(opened, 1)
    // A double-quoted name that names nothing is an error, never a string (as GRDB had it).
    imgcache_sqlite_disable_quoted_strings(opened)
    let milliseconds = (busyTimeout * 1_000).rounded()
    sqlite3_busy_timeout(opened, milliseconds < 1 ? 0 : Int32(min(milliseconds, Double(Int32.max))))
  }

  /// A connection whose handle another owner opened and will close (a test's GRDB connection,
  /// say): this one only prepares and runs statements on it.
  package init(borrowing handle: OpaquePointer, path: String) {
    self.handle = handle
    self.path = path
    owned = false
  }

  deinit { close() }

  /// Runs `sql`, one statement or several separated by `;`, to its end. With `arguments`,
  /// `sql` is one statement.
  package func execute(sql: String, _ arguments: [any SQLiteConvertible] = []) throws {
    try checkOpen()
    guard arguments.isEmpty else {
      try prepare(sql).execute(arguments)
      return
    }
    try sql.withCString { start in
      var next: UnsafePointer<CChar>? = start
      while let current = next, current.pointee != 0 {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sqlite3_prepare_v2(handle, current, -1, &statement, &tail)
        guard code == SQLITE_OK else { throw SQLiteError.last(code, handle, sql: sql) }
        next = tail
        // Only white space or a comment was left.
        guard let statement else { continue }
        try CompiledStatement(handle: statement, sql: String(cString: current)).run()
      }
    }
  }

  /// `sql` (one statement) prepared anew; finalized when released.
  package func prepare(_ sql: String) throws -> CompiledStatement {
    try checkOpen()
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else {
      sqlite3_finalize(statement)
      throw SQLiteError.last(code == SQLITE_OK ? SQLITE_MISUSE : code, handle, sql: sql)
    }
    return CompiledStatement(handle: statement, sql: sql)
  }

  /// `sql` (one statement) prepared once on this connection and kept.
  package func cachedStatement(_ sql: String) throws -> CompiledStatement {
    if let statement = cached[sql] { return statement }
    let statement = try prepare(sql)
    cached[sql] = statement
    return statement
  }

  /// Every row `sql` gives with `arguments`.
  package func rows(_ sql: String, _ arguments: [any SQLiteConvertible] = []) throws
    -> [SQLiteRow]
  {
    try cachedStatement(sql).rows(arguments)
  }

  /// The first row `sql` gives with `arguments`, if any.
  package func firstRow(_ sql: String, _ arguments: [any SQLiteConvertible] = []) throws
    -> SQLiteRow?
  {
    try cachedStatement(sql).firstRow(arguments)
  }

  /// The first column of the first row `sql` gives, as `Value`: nil when there is no row or
  /// it holds NULL.
  package func firstValue<Value: SQLiteConvertible>(
    _ sql: String, _ arguments: [any SQLiteConvertible] = [], as type: Value.Type = Value.self
  ) throws -> Value? {
    try cachedStatement(sql).firstValue(arguments)
  }

  /// The first column of every row `sql` gives, as `Value`.
  package func values<Value: SQLiteConvertible>(
    _ sql: String, _ arguments: [any SQLiteConvertible] = [], as type: Value.Type = Value.self
  ) throws -> [Value] {
    try cachedStatement(sql).values(arguments)
  }

  /// The rows `sql` gives with `arguments`, one at a time.
  package func cursor(_ sql: String, _ arguments: [any SQLiteConvertible] = []) throws
    -> RowCursor
  {
    // A statement of its own: a cursor left alive never resets a cached statement in use.
    try prepare(sql).cursor(arguments)
  }

  /// Whether a transaction is open.
  package var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs `body` in a transaction of `kind`: committed when it returns, rolled back when it
  /// throws.
  package func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws
    -> T
  {
    try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
    do {
      let value = try body()
      try commit()
      return value
    } catch {
      rollback()
      throw error
    }
  }

  /// A passive checkpoint of the WAL: what no reader needs is copied into the database file;
  /// never waits for other connections.
  package func checkpoint() throws {
    let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    guard code == SQLITE_OK else { throw SQLiteError.last(code, handle) }
  }

  /// Called once a transaction ends through ``commit()`` (true: COMMIT succeeded) or
  /// ``rollback()`` (false), and when the connection closes (false: what it held is gone).
  package var onTransactionEnd: ((Bool) -> Void)?
  /// Called once the open transaction ends, as ``onTransactionEnd``, then forgotten.
  private var onThisTransactionEnd = [(Bool) -> Void]()

  /// Has `body` called once the open transaction ends (true: COMMIT succeeded), then forgets it.
  package func whenTransactionEnds(_ body: @escaping (Bool) -> Void) {
    onThisTransactionEnd.append(body)
  }

  /// Tells who listens that the transaction ended.
  private func transactionEnded(committed: Bool) {
    onTransactionEnd?(committed)
    let once = onThisTransactionEnd
    onThisTransactionEnd = []
    for body in once { body(committed) }
  }

  /// Commits the open transaction; ``onTransactionEnd`` hears of it once it succeeded.
  package func commit() throws {
    try execute(sql: "COMMIT TRANSACTION")
    transactionEnded(committed: true)
  }

  /// Rolls the open transaction back, if it is still open (a failed statement may have
  /// ended it already); ``onTransactionEnd`` hears of it either way.
  package func rollback() {
    if isInsideTransaction { try? execute(sql: "ROLLBACK TRANSACTION") }
    transactionEnded(committed: false)
  }

  /// Frees the memory the connection holds that it can do without (its page cache).
  package func releaseMemory() {
    sqlite3_db_release_memory(handle)
  }

  private func checkOpen() throws {
    guard !closed else { throw SQLiteError(code: SQLITE_MISUSE, message: "\(path): closed") }
  }

  /// Finalizes the cached statements and closes the connection (again: nothing).
  package func close() {
    guard !closed else { return }
    closed = true
    cached.removeAll()
    transactionEnded(committed: false)
    onTransactionEnd = nil
    if owned { sqlite3_close_v2(handle) }
  }
}
