import CSQLite
import FoundationEssentials

/// A scalar SQL function written in Swift, added to a connection (``SQLiteConnection/add(_:)``):
/// a migration's conversions run inside one `INSERT … SELECT`.
package struct SQLiteFunction: Sendable {
  /// The name SQL calls it by.
  package let name: String
  /// How many arguments it takes.
  package let argumentCount: Int32
  /// Whether the same arguments always give the same result (SQLite may then factor calls).
  package let deterministic: Bool
  /// The function.
  package let body: @Sendable ([SQLiteValue]) -> SQLiteValue

  /// The function `name` of `argumentCount` arguments, computed by `body`.
  package init(
    _ name: String, argumentCount: Int32, deterministic: Bool = true,
    _ body: @escaping @Sendable ([SQLiteValue]) -> SQLiteValue
  ) {
    self.name = name
    self.argumentCount = argumentCount
    self.deterministic = deterministic
    self.body = body
  }

  /// The function's closure, kept alive by SQLite until it is removed or the connection closes.
  final class Box {
    let body: @Sendable ([SQLiteValue]) -> SQLiteValue
    init(_ body: @escaping @Sendable ([SQLiteValue]) -> SQLiteValue) { self.body = body }
  }

  /// The argument `value` as a value.
  static func read(_ value: OpaquePointer?) -> SQLiteValue {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
      guard let text = sqlite3_value_text(value) else { return .text("") }
      let count = Int(sqlite3_value_bytes(value))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      let bytes = sqlite3_value_blob(value)
      let count = Int(sqlite3_value_bytes(value))
      return .blob(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    default: return .null
    }
  }

  /// Sets `value` as the result of the call of `context`.
  static func answer(_ value: SQLiteValue, _ context: OpaquePointer?) {
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let number): sqlite3_result_int64(context, number)
    case .real(let number): sqlite3_result_double(context, number)
    case .text(let text):
      var text = text
      text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else {
          return sqlite3_result_text(context, "", 0, transient)
        }
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
          sqlite3_result_text64(
            context, $0, sqlite3_uint64(bytes.count), transient, UInt8(SQLITE_UTF8))
        }
      }
    case .blob(let data):
      data.withUnsafeBytes { bytes in
        sqlite3_result_blob64(
          context, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
          sqlite3_uint64(bytes.count), transient)
      }
    }
  }
}

extension SQLiteConnection {
  /// Adds `function` to this connection (replacing one of its name and argument count).
  package func add(_ function: SQLiteFunction) throws {
    let box = Unmanaged.passRetained(SQLiteFunction.Box(function.body)).toOpaque()
    let flags = SQLITE_UTF8 | (function.deterministic ? SQLITE_DETERMINISTIC : 0)
    let code = sqlite3_create_function_v2(
      handle, function.name, function.argumentCount, flags, box,
      { context, count, arguments in
        guard let data = sqlite3_user_data(context) else { return }
        let box = Unmanaged<SQLiteFunction.Box>.fromOpaque(data).takeUnretainedValue()
        let values = (0..<Int(count)).map { SQLiteFunction.read(arguments?[$0]) }
        SQLiteFunction.answer(box.body(values), context)
      }, nil, nil,
      { data in
        guard let data else { return }
        Unmanaged<SQLiteFunction.Box>.fromOpaque(data).release()
      })
    // On failure SQLite has already called the destructor, which released the box.
    guard code == SQLITE_OK else { throw SQLiteError.last(code, handle) }
  }

  /// Removes the function `name` of `argumentCount` arguments.
  package func remove(function name: String, argumentCount: Int32) {
    sqlite3_create_function_v2(
      handle, name, argumentCount, SQLITE_UTF8, nil, nil, nil, nil, nil)
  }
}
