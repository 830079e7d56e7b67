import FoundationEssentials
import GRDBSQLite

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
    sqlite3_reset(handle)
    guard arguments.count == parameterCount else {
      throw SQLiteError(
        code: SQLITE_RANGE, message: "\(arguments.count) values for \(parameterCount) parameters",
        sql: sql)
    }
    for (offset, argument) in arguments.enumerated() {
      try bind(argument.sqliteValue, at: Int32(offset + 1))
    }
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

  /// Binds `arguments` and runs the statement to its end.
  package func execute(_ arguments: [any SQLiteConvertible] = []) throws {
    try bind(arguments)
    try run()
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

  /// Every column of the current row.
  package func currentRow() -> SQLiteRow {
    SQLiteRow(
      values: (0..<sqlite3_column_count(handle)).map { value(at: $0) }, names: columnNames)
  }

  private func check(_ code: Int32) throws {
    guard code != SQLITE_OK else { return }
    throw SQLiteError.last(code, sqlite3_db_handle(handle), sql: sql)
  }
}
