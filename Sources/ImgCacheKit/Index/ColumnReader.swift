import FoundationEssentials
import GRDB
import GRDBSQLite

/// Something whose columns are read by position: a GRDB `Row`, or the current row of a
/// statement read straight from SQLite (``StatementColumns``). ``CacheEntry/init(columns:)``
/// decodes either, written once.
protocol ColumnReader {
  /// The value of column `index`; throws when it does not convert to `Value` (NULL into a
  /// non-optional, text into a number).
  func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) throws
    -> Value
  /// Column `index` when it holds an integer; nil when it holds anything else.
  func integer(_ index: Int) -> Int64?
  /// `body` called with the bytes of column `index` when it holds a BLOB; nil otherwise.
  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T?
}

extension Row: ColumnReader {
  func integer(_ index: Int) -> Int64? {
    let value: DatabaseValue = self[index]
    if case .int64(let number) = value.storage { return number }
    return nil
  }

  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
    let value: DatabaseValue = self[index]
    guard case .blob(let data) = value.storage else { return nil }
    return data.withUnsafeBytes(body)
  }

  func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) throws
    -> Value
  {
    try decode(Value.self, atIndex: index)
  }
}

/// The current row of a stepped statement, read by position without building a `Row`: GRDB's
/// `Row` maps every column's lower-cased name when it is made, about 30,000 instructions for
/// the 24 columns of an entry — more than the rest of a one-key lookup (`fetch -i`).
struct StatementColumns: ColumnReader {
  let statement: SQLiteStatement

  func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) throws
    -> Value
  {
    guard let value = Value.fromStatement(statement, atUncheckedIndex: CInt(index)) else {
      throw DatabaseError(
        resultCode: .SQLITE_MISMATCH, message: "column \(index) does not hold a \(Value.self)")
    }
    return value
  }

  func integer(_ index: Int) -> Int64? {
    guard sqlite3_column_type(statement, CInt(index)) == SQLITE_INTEGER else { return nil }
    return sqlite3_column_int64(statement, CInt(index))
  }

  func withBlob<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
    guard sqlite3_column_type(statement, CInt(index)) == SQLITE_BLOB else { return nil }
    // The bytes first, then their count (SQLite's rule for reading a column).
    let bytes = sqlite3_column_blob(statement, CInt(index))
    let count = Int(sqlite3_column_bytes(statement, CInt(index)))
    return body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
  }
}
