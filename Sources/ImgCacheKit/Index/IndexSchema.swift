import CSQLite
import FoundationEssentials

/// The index schema and its migrations.
enum IndexSchema {
  /// Every migration, in order; a new version appends one and never edits an old one.
  static var migrator: SQLiteMigrator {
    var migrator = SQLiteMigrator()
    // The SQL of v1 to v8 is what GRDB's schema builder wrote for them (IndexSchemaTests
    // holds the whole schema to it).
    migrator.register("v1") { db in try db.execute(sql: v1) }
    migrator.register("v2") { db in
      // The content hash of each body, computed while it streams in (remote tier, verify).
      // A failure belongs to a request, not to a URL: the fingerprint of the options that can
      // change the outcome is part of the key, so a corrected request is a new attempt.
      // Partial bodies kept for a resumed download (Range + If-Range with a strong validator).
      try db.execute(sql: v2)
    }
    // Counters by cause (stats), and the indexes `list --sort size|created` pages through.
    migrator.register("v3") { db in try countersByCause(db) }
    migrator.register("v4") { db in
      // HTTP freshness (RFC 9111): the response's own words, and when it was received.
      try db.execute(
        sql: """
          ALTER TABLE "entry" ADD COLUMN "cache_control" TEXT;
          ALTER TABLE "entry" ADD COLUMN "expires" TEXT;
          ALTER TABLE "entry" ADD COLUMN "date" TEXT;
          ALTER TABLE "entry" ADD COLUMN "age" TEXT;
          ALTER TABLE "entry" ADD COLUMN "received" DOUBLE;
          """)
    }
    migrator.register("v5") { db in
      // The response's status: heuristic freshness is only for heuristically cacheable ones.
      try db.execute(sql: #"ALTER TABLE "entry" ADD COLUMN "status" INTEGER"#)
    }
    migrator.register("v6") { db in
      // Whether the body may be shared with other machines (the remote tier): fetched without
      // credentials, cookies or headers of the user's own. Unknown for older entries: not.
      try db.execute(
        sql: #"ALTER TABLE "entry" ADD COLUMN "shareable" BOOLEAN NOT NULL DEFAULT 0"#)
    }
    migrator.register("v7") { db in try EntryUses.create(db) }
    // Image variants: which original each variant entry was derived from (VariantLinks).
    migrator.register("v8") { db in try VariantLinks.create(db) }
    // The lean index: entries found by their key's MD5, no field written twice (StoredForm).
    migrator.register("v9") { db in try makeLean(db) }
    // robots.txt rules by origin, for `--robots` (StoredRobots).
    migrator.register("v10") { db in try StoredRobots.create(db) }
    return migrator
  }

  /// v3: counters by cause (stats): the four of v1 with a clear meaning keep their counts.
  static func countersByCause(_ db: SQLiteConnection) throws {
    for (old, new) in [
      ("hits", "hits_local"), ("stores", "downloads"), ("bytes_stored", "bytes_downloaded"),
      ("revalidations", "not_modified"),
    ] {
      try db.execute(sql: "UPDATE counter SET name = ? WHERE name = ?", [new, old])
    }
    try db.execute(sql: "DELETE FROM counter WHERE name = 'evictions'")
    // `list --sort size|created` page through these (values change only when stored).
    try db.execute(
      sql: """
        CREATE INDEX "entry_size" ON "entry"("size");
        CREATE INDEX "entry_created" ON "entry"("created");
        """)
    try db.execute(
      sql: "INSERT OR IGNORE INTO counter (name, value) VALUES (?, ?)",
      [Counter.sinceName, Int64(Date().timeIntervalSince1970)])
  }

  /// Brings the index up to date; the caller holds the opening lock (see ``Index/writer()``).
  static func migrate(_ pool: SQLitePool) throws {
    let migrator = self.migrator
    try pool.write { db in
      // An index of a newer schema is never read by rules it does not follow.
      if try migrator.isSuperseded(db) {
        throw CacheError(
          .localIO,
          "it was written by a newer imgcache (its schema is unknown to this one): "
            + "use that version, or 'imgcache clear' to start empty")
      }
      if try migrator.hasCompleted(db) { return }
      try migrator.migrate(db)
    }
  }

  /// Adds `delta` to the running totals; call inside the transaction that changed the entries.
  static func adjustTotals(_ db: SQLiteConnection, by delta: CacheTotals) throws {
    try db.cachedStatement(
      """
      UPDATE totals SET entries = entries + ?, bytes = bytes + ?, allocated = allocated + ?
      WHERE id = 1
      """
    ).execute([delta.entries, delta.bytes, delta.allocated])
  }

  /// Reads the running totals.
  static func totals(_ db: SQLiteConnection) throws -> CacheTotals {
    guard let row = try db.firstRow("SELECT entries, bytes, allocated FROM totals WHERE id = 1")
    else { return .zero }
    return CacheTotals(
      entries: try row.value(0), bytes: try row.value(1), allocated: try row.value(2))
  }

  /// The condition that finds an entry by its key: bound to its digest (the index), then its key.
  static let byKey = "entry.digest = ? AND entry.key = ?"

  /// Writes every column of `entry`'s row (its stored forms, ``StoredForm``), which exists: the
  /// totals do not change.
  static func rewrite(_ entry: CacheEntry, _ db: SQLiteConnection) throws {
    let statement = try db.cachedStatement(rewriteSQL)
    try statement.bind(
      values: entry.values + [StoredForm.digest(entry.digest), entry.key.sqliteValue])
    try statement.run()
  }

  private static let rewriteSQL = updateEveryColumn(where: byKey)

  /// An UPDATE of every column of the rows that meet `condition`, bound in the order of
  /// ``CacheEntry/values``, then `condition`'s parameters.
  static func updateEveryColumn(where condition: String) -> String {
    "UPDATE entry SET \(CacheEntry.Columns.all.map { "\($0.name) = ?" }.joined(separator: ", ")) "
      + "WHERE \(condition)"
  }

  /// Deletes `entries` from the index and adjusts the totals.
  static func delete(_ entries: [CacheEntry], _ db: SQLiteConnection) throws {
    guard !entries.isEmpty else { return }
    var delta = CacheTotals.zero
    let statement = try db.cachedStatement("DELETE FROM entry WHERE \(byKey)")
    for entry in entries {
      try statement.execute([StoredForm.digest(entry.digest), entry.key])
      delta.entries -= 1
      delta.bytes -= entry.size
      delta.allocated -= entry.allocated
    }
    try adjustTotals(db, by: delta)
  }

  /// Adds `amounts` to the persistent counters (for `stats`).
  static func increment(_ amounts: [Counter: Int64], _ db: SQLiteConnection, tallied: Bool = true)
    throws
  {
    try increment(
      named: Dictionary(uniqueKeysWithValues: amounts.map { ($0.rawValue, $1) }), db,
      tallied: tallied)
  }

  /// Adds `amounts` to the counters of these names; `tallied` when they are this process's.
  static func increment(
    named amounts: [String: Int64], _ db: SQLiteConnection, tallied: Bool = true
  ) throws {
    guard !amounts.isEmpty else { return }
    // Held with the transaction: kept in this process's tally if it commits (CounterTally).
    if tallied { CounterTally.add(amounts, on: db) }
    let statement = try db.cachedStatement(
      """
      INSERT INTO counter (name, value) VALUES (?, ?)
      ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
      """)
    for (name, amount) in amounts where amount != 0 {
      try statement.execute([name, amount])
    }
  }
}
