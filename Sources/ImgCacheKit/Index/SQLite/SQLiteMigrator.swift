import CSQLite

/// The migrations of a schema, applied in order, each once, each in its own transaction. The
/// identifiers applied are kept in the table `grdb_migrations` (one `identifier` a row), the
/// table GRDB kept them in, so an index that GRDB migrated is read as it left it.
package struct SQLiteMigrator: Sendable {
  /// A migration: its identifier and what it does.
  package typealias Migration = (
    identifier: String, run: @Sendable (SQLiteConnection) throws -> Void
  )

  /// The migrations, in order.
  package private(set) var migrations = [Migration]()

  /// No migration yet.
  package init() {}

  /// Appends `run` under `identifier`: a new version appends one and never edits an old one.
  package mutating func register(
    _ identifier: String, _ run: @escaping @Sendable (SQLiteConnection) throws -> Void
  ) {
    migrations.append((identifier, run))
  }

  /// The identifiers applied to `connection`'s database.
  package func applied(_ connection: SQLiteConnection) throws -> Set<String> {
    let exists = try connection.firstRow(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
    guard exists != nil else { return [] }
    return Set(
      try connection.rows("SELECT identifier FROM grdb_migrations").map { try $0.value(0) })
  }

  /// Whether every migration has been applied.
  package func hasCompleted(_ connection: SQLiteConnection) throws -> Bool {
    Set(migrations.map(\.identifier)).isSubset(of: try applied(connection))
  }

  /// Whether a migration unknown here has been applied (a newer program's schema).
  package func isSuperseded(_ connection: SQLiteConnection) throws -> Bool {
    !(try applied(connection)).isSubset(of: Set(migrations.map(\.identifier)))
  }

  /// Applies the migrations not applied yet, in order, up to `last` (all when nil), each in an
  /// IMMEDIATE transaction with its identifier recorded; one that throws is rolled back, and
  /// the error goes up.
  package func migrate(_ connection: SQLiteConnection, upTo last: String? = nil) throws {
    if let last, !migrations.contains(where: { $0.identifier == last }) {
      throw SQLiteError(code: SQLITE_MISUSE, message: "no migration \(last)")
    }
    try connection.execute(
      sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
    var done = try applied(connection)
    for migration in migrations {
      if !done.contains(migration.identifier) {
        try connection.transaction(.immediate) {
          try migration.run(connection)
          try connection.execute(
            sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", [migration.identifier])
        }
        done.insert(migration.identifier)
      }
      if migration.identifier == last { return }
    }
  }
}
