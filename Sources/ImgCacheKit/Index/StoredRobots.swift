import FoundationEssentials

/// A host's robots.txt as the index keeps it for every process of the cache
/// (docs/design.md, Politeness): the rules for `imgcache`, and until when they hold.
public struct StoredRobots: Sendable, Equatable {
  /// The rules for `imgcache` (``RobotsRules/disallowAll`` when the file was unreachable).
  public var rules: RobotsRules
  /// Why the file could not be had (`HTTP 503`, a network failure): everything is disallowed
  /// until ``expires``. Nil when the rules are the file's (or a 4xx: none).
  public var unreachable: String?
  /// When the origin is asked again.
  public var expires: Date

  /// Creates a record.
  public init(rules: RobotsRules, unreachable: String? = nil, expires: Date) {
    (self.rules, self.unreachable, self.expires) = (rules, unreachable, expires)
  }

  /// The table, by origin (`scheme://host[:port]`, lower case).
  static func create(_ db: SQLiteConnection) throws {
    try db.execute(
      sql: """
        CREATE TABLE "robots" ("origin" TEXT PRIMARY KEY NOT NULL, "rules" TEXT NOT NULL, \
        "unreachable" TEXT, "expires" DOUBLE NOT NULL);
        CREATE INDEX "robots_expires" ON "robots"("expires");
        """)
  }
}

extension Index {
  /// The robots.txt kept for `origin`, unless it expired by `time` (or its row is damaged).
  package func robots(origin: String, at time: Date) throws -> StoredRobots? {
    try peek(orIfMissing: nil) { db in
      guard
        let row = try db.firstRow(
          "SELECT rules, unreachable, expires FROM robots WHERE origin = ?", [origin]),
        row.values.count == 3
      else { return nil }
      // A value of another type is a damaged row: expired, or no reason.
      let expires = Date(timeIntervalSince1970: Double(sqliteValue: row.values[2]) ?? 0)
      guard expires > time, let text = String(sqliteValue: row.values[0]),
        let rules = RobotsRules(encoded: text)
      else { return nil }
      return StoredRobots(
        rules: rules, unreachable: String(sqliteValue: row.values[1]), expires: expires)
    }
  }

  /// Keeps `robots` for `origin` (replacing what was kept), and forgets those expired by
  /// `time`.
  package func record(robots: StoredRobots, origin: String, at time: Date) throws {
    try write { db in
      try db.execute(
        sql: "DELETE FROM robots WHERE expires <= ?", [time.timeIntervalSince1970])
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO robots (origin, rules, unreachable, expires)
          VALUES (?, ?, ?, ?)
          """,
        [
          origin, robots.rules.encoded, robots.unreachable, robots.expires.timeIntervalSince1970,
        ])
    }
  }
}
