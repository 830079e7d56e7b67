import Foundation
import GRDB
import GRDBSQLite
import ImgCacheIndex
import ImgCacheTestSupport
import Testing

/// The index's own SQLite layer (`Index/SQLite/`): values, statements, transactions, functions,
/// the WAL pool and the migrator — the last against a database GRDB migrated, which it must
/// read as GRDB left it.
@Suite("SQLite layer: connections, statements, functions, pool and migrator")
struct SQLiteLayerTests {
  private func database() throws -> (directory: TemporaryDirectory, path: String) {
    let directory = TemporaryDirectory()
    return (directory, directory.url.appendingPathComponent("t.sqlite").path)
  }

  /// A connection to a new database in a directory of its own (kept while the test holds it).
  private func connection() throws -> (
    directory: TemporaryDirectory, ImgCacheIndex.SQLiteConnection
  ) {
    let (directory, path) = try database()
    return (directory, try ImgCacheIndex.SQLiteConnection(path: path, busyTimeout: 1))
  }

  private func options(busy: Double = 5) -> SQLiteOptions {
    var options = SQLiteOptions()
    options.busyTimeout = busy
    return options
  }

  @Test("every storage class goes in and comes back; conversions refuse what does not fit")
  func values() throws {
    let (directory, connection) = try self.connection()
    defer { withExtendedLifetime(directory) {} }
    try connection.execute(sql: "CREATE TABLE t (v); -- a comment after the last statement")
    let stored: [SQLiteValue] = [
      .null, .integer(Int64.min), .integer(42), .real(-0.5), .text(""), .text("é😀\u{0}x"),
      .blob(Data()), .blob(Data([0, 1, 255])),
    ]
    for value in stored { try connection.execute(sql: "INSERT INTO t (v) VALUES (?)", [value]) }
    let read = try connection.rows("SELECT v FROM t ORDER BY rowid").map(\.values[0])
    #expect(read == stored)
    let row = try #require(try connection.firstRow("SELECT 7, 2.0, 2.5, 'a', NULL, 1"))
    #expect(try row.value(0) as Int == 7)
    #expect(try row.value(1) as Int64 == 2)
    #expect(throws: SQLiteError.self) { try row.value(2) as Int64 }
    #expect(throws: SQLiteError.self) { try row.value(3) as Double }
    #expect(try row.value(4) as String? == nil)
    #expect(throws: SQLiteError.self) { try row.value(4) as String }
    #expect(try row.value(5) as Bool == true)
    #expect(throws: SQLiteError.self) { try row.value(6) as Int }
  }

  @Test("a wrong count of arguments is an error naming the SQL, never the values")
  func argumentCount() throws {
    let (directory, connection) = try self.connection()
    defer { withExtendedLifetime(directory) {} }
    try connection.execute(sql: "CREATE TABLE t (a, b)")
    let error = try #require(throws: SQLiteError.self) {
      try connection.execute(sql: "INSERT INTO t VALUES (?, ?)", ["secret-value"])
    }
    #expect(error.code == SQLITE_RANGE)
    #expect(error.description.contains("INSERT INTO t"))
    #expect(!error.description.contains("secret-value"))
    let syntax = try #require(throws: SQLiteError.self) { try connection.execute(sql: "SELEC 1") }
    #expect(syntax.code == SQLITE_ERROR && syntax.message?.contains("syntax") == true)
  }

  @Test("a cursor left early holds no statement open; values, first values, a row's count")
  func cursors() throws {
    let (directory, connection) = try self.connection()
    defer { withExtendedLifetime(directory) {} }
    try connection.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3)")
    do {
      let rows = try connection.cursor("SELECT v FROM t ORDER BY v")
      let first: Int? = try rows.next()?.value(0)
      #expect(first == 1)
    }
    // A statement still stepping would lock the table: SQLITE_LOCKED.
    try connection.execute(sql: "DROP TABLE t")
    try connection.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (NULL), ('x')")
    let rows = try connection.cursor("SELECT v FROM t ORDER BY rowid")
    var seen = 0
    while try rows.next() != nil { seen += 1 }
    let after = try rows.next()
    #expect(seen == 3 && after == nil)
    #expect(try connection.firstValue("SELECT v FROM t WHERE rowid = 2", as: Int.self) == nil)
    #expect(try connection.firstValue("SELECT v FROM t WHERE rowid = 9", as: Int.self) == nil)
    #expect(throws: SQLiteError.self) { try connection.values("SELECT v FROM t", as: Int.self) }
    #expect(try connection.values("SELECT v FROM t WHERE rowid = 1", as: Int.self) == [1])
    let insert = try connection.prepare("INSERT INTO t VALUES (?)")
    let short = try #require(throws: SQLiteError.self) { try insert.bind(values: []) }
    #expect(short.code == SQLITE_RANGE)
  }

  @Test("a transaction commits when its body returns and rolls back when it throws")
  func transactions() throws {
    let (directory, connection) = try self.connection()
    defer { withExtendedLifetime(directory) {} }
    try connection.execute(sql: "CREATE TABLE t (v)")
    try connection.transaction(.immediate) {
      #expect(connection.isInsideTransaction)
      try connection.execute(sql: "INSERT INTO t VALUES (1)")
    }
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try connection.transaction {
        try connection.execute(sql: "INSERT INTO t VALUES (2)")
        throw Failure()
      }
    }
    #expect(!connection.isInsideTransaction)
    #expect(try connection.rows("SELECT v FROM t").map { try $0.value(0) as Int } == [1])
  }

  @Test("a Swift function runs inside SQL, and is gone once removed")
  func functions() throws {
    let (directory, connection) = try self.connection()
    defer { withExtendedLifetime(directory) {} }
    try connection.add(
      SQLiteFunction("twice", argumentCount: 1) { values -> SQLiteValue in
        switch values[0] {
        case .integer(let number): .integer(number * 2)
        case .text(let text): .text(text + text)
        case .blob(let data): .blob(data + data)
        default: .null
        }
      })
    let row = try #require(
      try connection.firstRow(
        "SELECT twice(21), twice('a' || char(0) || 'b'), twice(NULL), twice(x'01')"))
    #expect(row.values == [.integer(42), .text("a\u{0}ba\u{0}b"), .null, .blob(Data([1, 1]))])
    connection.remove(function: "twice", argumentCount: 1)
    #expect(throws: SQLiteError.self) { try connection.firstRow("SELECT twice(1)") }
  }

  @Test(
    "the pool: WAL, a reader's snapshot holds while the writer commits, a busy lock is SQLITE_BUSY")
  func pool() throws {
    let (directory, path) = try database()
    defer { withExtendedLifetime(directory) {} }
    let pool = try SQLitePool(path: path, options: options(), label: "test")
    try pool.write { try $0.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (1)") }
    let mode = try pool.write { try $0.firstRow("PRAGMA journal_mode")?.value(0) as String? }
    #expect(mode == "wal")
    let counts = try pool.read { reader -> (Int, Int) in
      let before: Int = try #require(try reader.firstRow("SELECT COUNT(*) FROM t")).value(0)
      try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
      let after: Int = try #require(try reader.firstRow("SELECT COUNT(*) FROM t")).value(0)
      return (before, after)
    }
    #expect(counts == (1, 1))
    #expect(
      try pool.unsafeRead { try $0.firstRow("SELECT COUNT(*) FROM t")?.value(0) as Int? } == 2)
    let other = try SQLiteConnection(path: path, busyTimeout: 0)
    try pool.write { writer in
      try writer.transaction(.immediate) {
        let error = try #require(throws: SQLiteError.self) {
          try other.execute(sql: "BEGIN IMMEDIATE")
        }
        #expect(error.code == SQLITE_BUSY)
      }
    }
    other.close()
    pool.close()
  }

  @Test(
    "the migrator reads what GRDB's migrator recorded, applies only what is new, and knows a newer schema"
  )
  func migratorAfterGRDB() throws {
    let (directory, path) = try database()
    defer { withExtendedLifetime(directory) {} }
    var theirs = DatabaseMigrator()
    theirs.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a (x)") }
    theirs.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE b (x)") }
    try theirs.migrate(try DatabaseQueue(path: path))
    var ours = SQLiteMigrator()
    ours.register("v1") { _ in Issue.record("v1 ran again") }
    ours.register("v2") { _ in Issue.record("v2 ran again") }
    let connection = try SQLiteConnection(path: path, busyTimeout: 1)
    #expect(try ours.hasCompleted(connection))
    #expect(try !ours.isSuperseded(connection))
    ours.register("v3") { try $0.execute(sql: "CREATE TABLE c (x)") }
    #expect(try !ours.hasCompleted(connection))
    try ours.migrate(connection)
    #expect(try ours.hasCompleted(connection))
    #expect(try connection.firstRow("SELECT COUNT(*) FROM c") != nil)
    var older = SQLiteMigrator()
    older.register("v1") { _ in }
    #expect(try older.isSuperseded(connection))
    var failing = ours
    failing.register("v4") { connection in
      try connection.execute(sql: "CREATE TABLE d (x)")
      try connection.execute(sql: "NOT SQL")
    }
    #expect(throws: SQLiteError.self) { try failing.migrate(connection) }
    #expect(throws: SQLiteError.self) { try ours.migrate(connection, upTo: "v0") }
    #expect(try connection.firstRow("SELECT 1 FROM sqlite_master WHERE name = 'd'") == nil)
    #expect(try !failing.hasCompleted(connection))
    connection.close()
    let closed = try #require(throws: SQLiteError.self) { try connection.execute(sql: "SELECT 1") }
    #expect(closed.code == SQLITE_MISUSE)
  }
}
