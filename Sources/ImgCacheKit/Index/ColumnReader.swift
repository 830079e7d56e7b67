import GRDB

/// Something whose columns are read by position: a GRDB `Row`, or the current row of a
/// statement read straight from SQLite (``StatementColumns``). ``CacheEntry/init(columns:)``
/// decodes either, written once.
protocol ColumnReader {
  /// The value of column `index`; throws when it does not convert to `Value` (NULL into a
  /// non-optional, text into a number).
  func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int) throws
    -> Value
}

extension Row: ColumnReader {
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
}
