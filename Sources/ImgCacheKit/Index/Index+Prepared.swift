import Synchronization

/// The statements of a process's direct connection (``Index``), prepared once and found by a
/// slot: a connection's statement cache is keyed by the SQL text, hashed whole on every use
/// (≈3,300 instructions for the lookup's 1,000 characters: a tenth of a `fetch -i` hit).
///
/// A statement is only ever run inside its connection's serialized access (the closure of
/// ``SQLiteQueue/access(_:)``), and the set is emptied before the connection closes: hence
/// `@unchecked Sendable`.
// @unchecked: SQLite statements (C handles), run only inside their connection's serialized access.
struct PreparedStatements: @unchecked Sendable {
  /// The direct connection's database, the one whose statements these are.
  var database: ObjectIdentifier?
  var statements = [StatementSlot: CompiledStatement]()
}

/// Which prepared statement (``PreparedStatements``).
enum StatementSlot: Hashable {
  /// ``EntryUses/selectByKeys(count:)`` for a padded batch of `size` keys.
  case entriesByKey(size: Int)
  /// ``VariantLinks/outdatedSQL(count:)`` for a padded batch of `size` keys.
  case outdatedVariants(size: Int)
}

extension Index {
  /// The statement of `slot` on `db`, whose SQL is `sql`: prepared once on the direct
  /// connection, from the connection's cache on a pool's.
  func statement(_ slot: StatementSlot, _ db: SQLiteConnection, sql: () -> String) throws
    -> CompiledStatement
  {
    let id = ObjectIdentifier(db)
    let cached = prepared.withLock { $0.database == id ? $0.statements[slot] : nil }
    if let cached { return cached }
    let statement = try db.cachedStatement(sql())
    prepared.withLock { if $0.database == id { $0.statements[slot] = statement } }
    return statement
  }
}
