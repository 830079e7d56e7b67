/// A condition on rows as SQL text and its arguments, in order: what the index's queries of
/// entries filter by, written as SQL (not a query builder's), joined with `&&`, `||`, `!`.
struct SQLFilter {
  /// The condition, with a `?` for each argument.
  var sql: String
  /// The arguments, in order.
  var arguments: [any SQLiteConvertible] = []

  /// No row.
  static var none: SQLFilter { SQLFilter(sql: "0") }
  /// Every row.
  static var all: SQLFilter { SQLFilter(sql: "1") }

  static func && (left: SQLFilter, right: SQLFilter) -> SQLFilter {
    SQLFilter(sql: "(\(left.sql)) AND (\(right.sql))", arguments: left.arguments + right.arguments)
  }

  static func || (left: SQLFilter, right: SQLFilter) -> SQLFilter {
    SQLFilter(sql: "(\(left.sql)) OR (\(right.sql))", arguments: left.arguments + right.arguments)
  }

  static prefix func ! (filter: SQLFilter) -> SQLFilter {
    SQLFilter(sql: "NOT (\(filter.sql))", arguments: filter.arguments)
  }
}

/// A query of entries: the columns of ``CacheEntry/selectList`` (then `extra` ones), the rows
/// `filter` keeps, in `order`, at most `limit`.
struct EntryQuery {
  var filter = SQLFilter.all
  var order: String?
  var limit: Int?
  /// Columns selected after the entry's (`rowid`, a sort key).
  var extra: [String] = []

  /// The query's SQL.
  var sql: String {
    var text = "SELECT \(([CacheEntry.selectList] + extra).joined(separator: ", ")) FROM entry"
    text += " WHERE \(filter.sql)"
    if let order { text += " ORDER BY \(order)" }
    if let limit { text += " LIMIT \(max(0, limit))" }
    return text
  }

  /// The rows, copied out.
  func rows(_ db: SQLiteConnection) throws -> [SQLiteRow] {
    try db.rows(sql, filter.arguments)
  }

  /// The rows, one at a time.
  func cursor(_ db: SQLiteConnection) throws -> RowCursor {
    try db.cursor(sql, filter.arguments)
  }

  /// The entries.
  func entries(_ db: SQLiteConnection) throws -> [CacheEntry] {
    try rows(db).map(CacheEntry.init(row:))
  }
}
