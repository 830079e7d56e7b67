import GRDBSQLite

/// An error SQLite returned: its extended result code, its message, and the statement's SQL
/// (never its arguments, which may be a user's URL).
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
  /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_IOERR_SHORT_READ`, …).
  package let extendedCode: Int32
  /// SQLite's message (`sqlite3_errmsg`), when it gave one.
  package let message: String?
  /// The SQL that failed, when one did.
  package let sql: String?

  /// The error of extended result `code`, with SQLite's `message` and the failed `sql`.
  package init(code: Int32, message: String? = nil, sql: String? = nil) {
    extendedCode = code
    self.message = message
    self.sql = sql
  }

  /// The primary result code (`SQLITE_BUSY` for every kind of busy).
  package var code: Int32 { extendedCode & 0xFF }

  /// The code, the message and the SQL, on one line.
  package var description: String {
    var text = "SQLite error \(extendedCode)"
    if let message { text += ": \(message)" }
    if let sql { text += " - while executing `\(sql)`" }
    return text
  }

  /// The error of `connection` after `code`, with the connection's message.
  static func last(_ code: Int32, _ connection: OpaquePointer?, sql: String? = nil) -> SQLiteError {
    let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
    let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
    // The connection's extended code belongs to its last failure; keep it only when it is
    // this one's kind.
    return SQLiteError(
      code: extended & 0xFF == code & 0xFF ? extended : code,
      message: message ?? String(cString: sqlite3_errstr(code)), sql: sql)
  }
}
