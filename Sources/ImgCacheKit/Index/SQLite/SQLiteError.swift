import CSQLite

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

  /// `SQLITE_IOERR_SHMSIZE`: shared memory could not grow (a macro Swift does not import).
  package static let sharedMemorySize = SQLITE_IOERR | (19 << 8)
  /// `SQLITE_IOERR_SHMMAP`: shared memory could not be mapped.
  package static let sharedMemoryMap = SQLITE_IOERR | (21 << 8)

  /// The primary result code (`SQLITE_BUSY` for every kind of busy).
  package var code: Int32 { extendedCode & 0xFF }

  /// The primary code, the message and the SQL (its ends trimmed), as GRDB wrote them when it
  /// opened the index: messages read the same as before.
  package var description: String {
    var text = "SQLite error \(code)"
    if let message { text += ": \(message)" }
    if let sql {
      let trimmed = sql.trimming { $0 == ";" || $0 == " " || (0x09...0x0D).contains($0.value) }
      text += " - while executing `\(trimmed)`"
    }
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
