import FoundationEssentials
import GRDB
import GRDBSQLite

/// A cached statement run straight through SQLite's C API — bound, stepped, reset — for the
/// statements every URL pays: the lookup of entries by key, the recording of uses, a store. GRDB's
/// `StatementArguments` go through a generic map that boxes each value (≈1,400 instructions a
/// value, three a use) and its cursor adds its own bookkeeping; here a value costs one
/// `sqlite3_bind_*`. SQLite's C API is used in `Index/` only: here, in ``StatementColumns``, and
/// for the VFS in `IndexRoom`.
struct DirectStatement {
  /// SQLite's "copy the text now" destructor.
  private static let transient = unsafeBitCast(
    OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

  private let handle: SQLiteStatement

  /// `statement` (a GRDB statement of the connection whose closure runs now), reset.
  init(_ statement: Statement) {
    handle = statement.sqliteStatement
    sqlite3_reset(handle)
  }

  /// `statement`, reset, with `text` bound to its one parameter.
  init(_ statement: Statement, binding text: String) throws {
    self.init(statement)
    try bind(text, at: 1)
  }

  /// Binds `value` to parameter `index` (from 1).
  func bind(_ value: String, at index: Int32) throws {
    try check(value.withCString { sqlite3_bind_text(handle, index, $0, -1, Self.transient) })
  }

  /// Binds `value` to parameter `index` (from 1).
  func bind(_ value: Double, at index: Int32) throws {
    try check(sqlite3_bind_double(handle, index, value))
  }

  /// Binds `value` to parameter `index` (from 1).
  func bind(_ value: Int64, at index: Int32) throws {
    try check(sqlite3_bind_int64(handle, index, value))
  }

  /// Binds the indexed half of `digest` (``KeyDigest/high``) to parameter `index` (from 1).
  func bind(_ digest: KeyDigest, at index: Int32) throws { try bind(digest.high, at: index) }

  /// Binds NULL to parameter `index` (from 1).
  func bindNull(at index: Int32) throws { try check(sqlite3_bind_null(handle, index)) }

  /// Binds `values` to the parameters from 1 on, each by its storage class: a row's worth of
  /// values without GRDB's per-value boxing.
  func bind(_ values: [DatabaseValue]) throws {
    // As GRDB's arguments: a count that does not match is an error, never a parameter left
    // with the previous row's value.
    guard Int(sqlite3_bind_parameter_count(handle)) == values.count else {
      throw DatabaseError(
        resultCode: .SQLITE_RANGE,
        message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters")
    }
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      switch value.storage {
      case .null: try bindNull(at: index)
      case .int64(let number): try bind(number, at: index)
      case .double(let number): try bind(number, at: index)
      case .string(let text): try bind(text, at: index)
      case .blob(let data):
        try check(
          data.withUnsafeBytes { bytes in
            guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
            return sqlite3_bind_blob(handle, index, bytes.baseAddress, length, Self.transient)
          })
      }
    }
  }

  /// Runs the statement, handing each result row to `row` (read it with ``StatementColumns``),
  /// then resets it, whatever happened.
  package func run(_ row: (SQLiteStatement) throws -> Void = { _ in }) throws {
    defer { sqlite3_reset(handle) }
    while true {
      let code = sqlite3_step(handle)
      switch code {
      case SQLITE_ROW: try row(handle)
      case SQLITE_DONE: return
      default: try check(code)
      }
    }
  }

  /// Runs the statement and returns the first column of its first row as an integer (nil
  /// when there is no row): a count or an `EXISTS` without GRDB's generic fetch (≈10,000
  /// instructions for one value).
  func firstInteger() throws -> Int64? {
    var value: Int64?
    try run { row in
      if value == nil { value = sqlite3_column_int64(row, 0) }
    }
    return value
  }

  /// Whether `table` has any row (`SELECT EXISTS`, stepped directly): the check before a
  /// query or a statement that most batches need not run.
  static func anyRow(in table: String, _ db: Database) throws -> Bool {
    try DirectStatement(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table))"))
      .firstInteger() == 1
  }

  private func check(_ code: Int32) throws {
    guard code != SQLITE_OK else { return }
    let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map {
      String(cString: $0)
    }
    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
  }
}
