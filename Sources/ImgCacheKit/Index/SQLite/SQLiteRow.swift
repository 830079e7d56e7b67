import CSQLite

/// A result row, its values and their column names.
package struct SQLiteRow: Sendable, Equatable {
  /// The values, in the result's column order.
  package let values: [SQLiteValue]
  /// The column names, in the same order.
  package let names: [String]

  /// Column `index` as `Value`; throws when it does not convert (NULL into a non-optional,
  /// text into a number).
  package func value<Value: SQLiteConvertible>(_ index: Int) throws -> Value {
    guard values.indices.contains(index) else {
      throw SQLiteError(
        code: SQLITE_RANGE, message: "no column \(index) in a row of \(values.count)")
    }
    guard let value = Value(sqliteValue: values[index]) else {
      throw SQLiteError(
        code: SQLITE_MISMATCH, message: "column \(index) does not hold a \(Value.self)")
    }
    return value
  }

  /// The column named `name` (the first of that name, any case) as `Value`.
  package func value<Value: SQLiteConvertible>(named name: String) throws -> Value {
    let lowered = name.lowercased()
    guard let index = names.firstIndex(where: { $0.lowercased() == lowered }) else {
      throw SQLiteError(code: SQLITE_RANGE, message: "no column \(name)")
    }
    return try value(index)
  }
}
