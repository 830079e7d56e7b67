import CSQLite
import FoundationEssentials

/// Something whose columns are read by position: a row copied out (``SQLiteRow``), or the
/// current row of a stepped statement read straight from SQLite (``CompiledStatement``), which
/// builds no row (names and all) for the 24 columns of an entry on the hit path.
/// ``CacheEntry/init(columns:)`` decodes either, written once.
protocol ColumnReader {
  /// The value of column `index`; throws when it does not convert to `Value` (NULL into a
  /// non-optional, text into a number).
  func value<Value: SQLiteConvertible>(_ index: Int) throws -> Value
  /// Column `index` when it holds an integer; nil when it holds anything else.
  func integer(_ index: Int) -> Int64?
  /// `body` called with the bytes of column `index` when it holds a BLOB; nil otherwise.
  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T?
}

extension SQLiteRow: ColumnReader {
  func integer(_ index: Int) -> Int64? {
    guard values.indices.contains(index), case .integer(let number) = values[index] else {
      return nil
    }
    return number
  }

  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
    guard values.indices.contains(index), case .blob(let data) = values[index] else { return nil }
    return data.withUnsafeBytes(body)
  }
}

extension CompiledStatement: ColumnReader {
  func integer(_ index: Int) -> Int64? {
    guard let column = Int32(exactly: index), sqlite3_column_type(handle, column) == SQLITE_INTEGER
    else { return nil }
    return sqlite3_column_int64(handle, column)
  }

  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
    guard let column = Int32(exactly: index), sqlite3_column_type(handle, column) == SQLITE_BLOB
    else { return nil }
    // The bytes first, then their count (SQLite's rule for reading a column).
    let bytes = sqlite3_column_blob(handle, column)
    let count = Int(sqlite3_column_bytes(handle, column))
    return body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
  }
}

extension CompiledStatement {
  /// Binds the indexed half of `digest` (``KeyDigest/high``) to parameter `index` (from 1).
  func bind(_ digest: KeyDigest, at index: Int32) throws { try bind(digest.high, at: index) }

  /// Whether `table` has any row (`SELECT EXISTS`): the check before a query or a statement
  /// that most batches need not run.
  static func anyRow(in table: String, _ db: SQLiteConnection) throws -> Bool {
    try db.cachedStatement("SELECT EXISTS (SELECT 1 FROM \(table))").firstInteger() == 1
  }
}
