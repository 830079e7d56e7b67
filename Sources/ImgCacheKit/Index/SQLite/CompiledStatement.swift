import CSQLite
import FoundationEssentials

/// One SQL statement, prepared on its connection (``SQLiteConnection``): bound, stepped and
/// reset there, finalized when released. Used only inside its connection's serialized access.
package final class CompiledStatement {
  /// SQLite's "copy the value now" destructor.
  private static let transient = unsafeBitCast(
    OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

  /// The statement's handle, for reading the current row straight from SQLite.
  package let handle: OpaquePointer
  /// The SQL as prepared.
  package let sql: String

  init(handle: OpaquePointer, sql: String) {
    self.handle = handle
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  /// The number of `?` parameters.
  package var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

  /// The result's column names, in order.
  package var columnNames: [String] {
    (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
  }

  /// Binds `arguments` to the parameters from 1 on; their count must be the parameters'.
  package func bind(_ arguments: [any SQLiteConvertible]) throws {
    try bind(values: arguments.map(\.sqliteValue))
  }

  /// Binds `value` to parameter `index` (from 1).
  package func bind(_ value: SQLiteValue, at index: Int32) throws {
    let code: Int32
    switch value {
    case .null: code = sqlite3_bind_null(handle, index)
    case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
    case .real(let number): code = sqlite3_bind_double(handle, index, number)
    case .text(let text):
      // By length, not up to a NUL: text may hold one.
      var text = text
      code = text.withUTF8 { bytes in
        guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
        guard let base = bytes.baseAddress else {
          return sqlite3_bind_text(handle, index, "", 0, Self.transient)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
          sqlite3_bind_text(handle, index, $0, length, Self.transient)
        }
      }
    case .blob(let data):
      code = data.withUnsafeBytes { bytes in
        guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
        // A zero-length blob still needs an address: SQLite binds NULL for a nil one.
        return sqlite3_bind_blob(
          handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), length,
          Self.transient)
      }
    }
    try check(code)
  }

  /// Steps through every result row, handing each to `row` (read it with ``value(at:)``),
  /// then resets the statement, whatever happened.
  package func run(_ row: (CompiledStatement) throws -> Void = { _ in }) throws {
    defer { sqlite3_reset(handle) }
    while true {
      let code = sqlite3_step(handle)
      switch code {
      case SQLITE_ROW: try row(self)
      case SQLITE_DONE: return
      default: try check(code)
      }
    }
  }

  /// Binds `values` to the parameters from 1 on; their count must be the parameters' (no
  /// parameter keeps the previous row's value). A row's worth without boxing each value.
  package func bind(values: [SQLiteValue]) throws {
    sqlite3_reset(handle)
    guard values.count == parameterCount else {
      throw SQLiteError(
        code: SQLITE_RANGE, message: "\(values.count) values for \(parameterCount) parameters",
        sql: sql)
    }
    for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
  }

  /// Ends a run left stepping, so the statement can be bound again (a run and a cursor reset
  /// it when they end; bindings stay until bound anew).
  package func reset() { sqlite3_reset(handle) }

  /// Binds `value` to parameter `index` (from 1); ``reset()`` first if it may be stepping.
  package func bind(_ value: some SQLiteConvertible, at index: Int32) throws {
    try bind(value.sqliteValue, at: index)
  }

  /// Binds `arguments` and runs the statement to its end.
  package func execute(_ arguments: [any SQLiteConvertible] = []) throws {
    try bind(arguments)
    try run()
  }

  /// Every row the statement gives with `arguments`.
  package func rows(_ arguments: [any SQLiteConvertible] = []) throws -> [SQLiteRow] {
    try bind(arguments)
    var rows = [SQLiteRow]()
    try run { rows.append($0.currentRow()) }
    return rows
  }

  /// The first row the statement gives with `arguments`, if any.
  package func firstRow(_ arguments: [any SQLiteConvertible] = []) throws -> SQLiteRow? {
    try bind(arguments)
    var first: SQLiteRow?
    try run { if first == nil { first = $0.currentRow() } }
    return first
  }

  /// The first column of every row, as `Value`; throws on a value that does not convert.
  package func values<Value: SQLiteConvertible>(
    _ arguments: [any SQLiteConvertible] = [], as type: Value.Type = Value.self
  ) throws -> [Value] {
    try bind(arguments)
    var values = [Value]()
    try run { values.append(try $0.value(0)) }
    return values
  }

  /// The first column of the first row as `Value`: nil when there is no row or it holds NULL.
  package func firstValue<Value: SQLiteConvertible>(
    _ arguments: [any SQLiteConvertible] = [], as type: Value.Type = Value.self
  ) throws -> Value? {
    try bind(arguments)
    var first: Value?
    var seen = false
    try run { row in
      guard !seen else { return }
      seen = true
      if row.value(at: 0) != .null { first = try row.value(0) }
    }
    return first
  }

  /// The rows of the statement bound to `arguments`, stepped one at a time (``RowCursor``).
  package func cursor(_ arguments: [any SQLiteConvertible] = []) throws -> RowCursor {
    try bind(arguments)
    return RowCursor(self)
  }

  /// Runs the statement and returns the first column of its first row as an integer (nil
  /// when there is no row): a count or an `EXISTS`.
  package func firstInteger() throws -> Int64? {
    var value: Int64?
    try run { row in
      if value == nil { value = sqlite3_column_int64(row.handle, 0) }
    }
    return value
  }

  /// Column `index` of the current row.
  package func value(at index: Int32) -> SQLiteValue {
    switch sqlite3_column_type(handle, index) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
    case SQLITE_TEXT:
      guard let text = sqlite3_column_text(handle, index) else { return .text("") }
      let count = Int(sqlite3_column_bytes(handle, index))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      // The bytes first, then their count (SQLite's rule for reading a column).
      let bytes = sqlite3_column_blob(handle, index)
      let count = Int(sqlite3_column_bytes(handle, index))
      return .blob(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    default: return .null
    }
  }

  /// Column `index` of the current row as `Value`; throws when it does not convert (NULL into
  /// a non-optional, text into a number).
  package func value<Value: SQLiteConvertible>(_ index: Int) throws -> Value {
    guard let column = Int32(exactly: index), let value = Value(sqliteValue: value(at: column))
    else {
      throw SQLiteError(
        code: SQLITE_MISMATCH, message: "column \(index) does not hold a \(Value.self)", sql: sql)
    }
    return value
  }

  /// Every column of the current row.
  package func currentRow() -> SQLiteRow {
    SQLiteRow(
      values: (0..<sqlite3_column_count(handle)).map { value(at: $0) }, names: columnNames)
  }

  /// Throws the connection's error unless `code` is `SQLITE_OK`.
  func check(_ code: Int32) throws {
    guard code != SQLITE_OK else { return }
    throw SQLiteError.last(code, sqlite3_db_handle(handle), sql: sql)
  }
}

/// The rows of a bound statement, one at a time: ``next()`` positions the statement on the
/// next row (read it as a ``ColumnReader``). The statement is reset when the cursor ends or is
/// released, so one left early holds no read lock.
package final class RowCursor {
  private let statement: CompiledStatement
  private var done = false

  init(_ statement: CompiledStatement) { self.statement = statement }

  deinit { sqlite3_reset(statement.handle) }

  /// The statement on its next row, or nil after the last.
  package func next() throws -> CompiledStatement? {
    guard !done else { return nil }
    let code = sqlite3_step(statement.handle)
    if code == SQLITE_ROW { return statement }
    done = true
    sqlite3_reset(statement.handle)
    guard code == SQLITE_DONE else {
      throw SQLiteError.last(code, sqlite3_db_handle(statement.handle), sql: statement.sql)
    }
    return nil
  }
}
