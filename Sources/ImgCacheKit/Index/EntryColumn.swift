import GRDB

/// The columns of the `entry` table, in the table's order: the one list that names them. A
/// column's raw value is its position in a row of ``CacheEntry/databaseSelection``, so the
/// positional decode (``CacheEntry/init(columns:)``) and the stored values
/// (``CacheEntry/values``) follow this list; its SQL name is the case's name in snake case.
public enum EntryColumn: Int, CaseIterable, ColumnExpression, Sendable {
  case key, url
  /// `file_ext` from schema v9 (``StoredForm``): a name no older imgcache reads, so that one
  /// opening this index fails at once instead of misreading it.
  case file
  case size, allocated, format, width, height, scale, contentType, etag, lastModified, created
  case lastAccess, expiry, accessCount, sha256, cacheControl, expires, date, age, received
  case status, shareable, digest, digestLow

  /// The column's name in SQL.
  public var name: String { Self.names[rawValue] }

  /// Every column, in the table's order (what every query of entries selects).
  static let all = allCases

  private static let names = allCases.map { column in
    column == .file ? "file_ext" : snakeCase(String(describing: column))
  }

  /// `lastAccess` → `last_access`.
  private static func snakeCase(_ name: String) -> String {
    var result = ""
    for character in name {
      if character.isUppercase {
        result += "_" + character.lowercased()
      } else {
        result.append(character)
      }
    }
    return result
  }
}

extension ColumnReader {
  /// The value of `column` in a row of ``CacheEntry/databaseSelection``.
  func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(
    _ column: EntryColumn
  ) throws -> Value {
    try value(column.rawValue)
  }
}
