/// The columns of the `entry` table, in the table's order: the one list that names them. A
/// column's raw value is its position in a row of ``CacheEntry/selectList``, so the
/// positional decode (``CacheEntry/init(columns:)``) and the stored values
/// (``CacheEntry/values``) follow this list; its SQL name is written beside it (``sqlName``).
public enum EntryColumn: Int, CaseIterable, Sendable {
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

  private static let names = allCases.map(\.sqlName)

  /// The SQL name (not `String(describing:)`: reflection cost a `query` 2.5 M instructions).
  private var sqlName: String {
    switch self {
    case .key: "key"
    case .url: "url"
    case .file: "file_ext"
    case .size: "size"
    case .allocated: "allocated"
    case .format: "format"
    case .width: "width"
    case .height: "height"
    case .scale: "scale"
    case .contentType: "content_type"
    case .etag: "etag"
    case .lastModified: "last_modified"
    case .created: "created"
    case .lastAccess: "last_access"
    case .expiry: "expiry"
    case .accessCount: "access_count"
    case .sha256: "sha256"
    case .cacheControl: "cache_control"
    case .expires: "expires"
    case .date: "date"
    case .age: "age"
    case .received: "received"
    case .status: "status"
    case .shareable: "shareable"
    case .digest: "digest"
    case .digestLow: "digest_low"
    }
  }
}

extension ColumnReader {
  /// The value of `column` in a row of ``CacheEntry/selectList``.
  func value<Value: SQLiteConvertible>(
    _ column: EntryColumn
  ) throws -> Value {
    try value(column.rawValue)
  }
}
