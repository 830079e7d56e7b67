/// The uses of entries (last access, use count) recorded without rewriting their rows
/// (docs/design.md, On disk): a hit adds to a narrow table, `entry_use`, one row per entry used
/// since the last merge. The uses are merged into `entry` by the write transactions that read
/// the LRU order or the use counts in bulk (`clean`, `list`), and folded in by a join where a
/// single entry is read (a lookup, `remove`) or rewritten (a store, a revalidation).
///
/// The table is keyed by the entry's rowid, not by its key: a batch of uses then fills a few
/// adjacent pages instead of one page per use, and merging walks the uses and finds each row
/// by rowid. A trigger deletes the use of an entry deleted by any statement (an older
/// imgcache's included), so a rowid reused by a later entry never inherits a use. imgcache
/// never runs `VACUUM`, which may renumber rowids: run `imgcache list` (a merge) before it.
enum EntryUses {
  /// Creates the table and its trigger (schema v7).
  static func create(_ db: SQLiteConnection) throws {
    try db.execute(
      sql: """
        CREATE TABLE entry_use (
          entry_rowid INTEGER PRIMARY KEY,
          last_access DOUBLE NOT NULL,
          access_count INTEGER NOT NULL
        );
        \(forgetTrigger)
        """)
  }

  /// The trigger that deletes the use of a deleted entry (made again with v9's `entry`).
  static let forgetTrigger = """
    CREATE TRIGGER entry_use_forget AFTER DELETE ON entry
    BEGIN DELETE FROM entry_use WHERE entry_rowid = OLD.rowid; END;
    """

  /// `entry` joined with its recorded use, for ``mergedSelectList``.
  static let joined = "entry LEFT JOIN entry_use ON entry_use.entry_rowid = entry.rowid"

  /// ``CacheEntry/selectList`` over ``joined``, the recorded use folded in: the latest of the
  /// two last accesses, the sum of the two counts. Decoded by ``CacheEntry/init(row:)``.
  static let mergedSelectList = CacheEntry.Columns.all.map { column -> String in
    switch column.name {
    case CacheEntry.Columns.lastAccess.name:
      "COALESCE(max(entry.last_access, entry_use.last_access), entry.last_access)"
    case CacheEntry.Columns.accessCount.name:
      "entry.access_count + COALESCE(entry_use.access_count, 0)"
    default: "entry.\(column.name)"
    }
  }.concatenated(separator: ", ")

  /// Records `uses` (a key's latest time and count), at most ``PaddedBatch/limit``, with one
  /// statement: a use of a key that has no entry (removed meanwhile) is dropped. Batches are
  /// padded (``PaddedBatch``) with rows whose NULL digest matches nothing. A use finds its
  /// entry by the indexed half of the key's digest alone (no read of the row to compare the
  /// key): two keys that share those 8 bytes of MD5 — a pair someone made on purpose, since
  /// finding a partner for a given key takes 2^64 tries — count each other's uses, and only
  /// each other's.
  static func record(
    _ uses: some Collection<(key: String, value: PendingWrites.Use)>, _ db: SQLiteConnection
  ) throws {
    let size = PaddedBatch.size(for: uses.count)
    let statement = try db.cachedStatement(
      "WITH used(digest, time, count) AS (VALUES "
        + PaddedBatch.list(of: "(?, ?, ?)", count: size)
          + """
          ) INSERT INTO entry_use (entry_rowid, last_access, access_count)
          SELECT entry.rowid, used.time, used.count FROM used, entry
          WHERE entry.digest = used.digest
          ON CONFLICT (entry_rowid) DO UPDATE SET
          last_access = max(last_access, excluded.last_access),
          access_count = access_count + excluded.access_count
          """)
    let direct = statement
    direct.reset()
    var parameter: Int32 = 1
    for (_, use) in uses {
      try direct.bind(use.digest, at: parameter)
      try direct.bind(use.time, at: parameter + 1)
      try direct.bind(use.count, at: parameter + 2)
      parameter += 3
    }
    while parameter <= 3 * size {
      try direct.bind(.null, at: parameter)
      parameter += 1
    }
    try direct.run()
  }

  /// Whether any use waits in the table.
  static func anyRecorded(_ db: SQLiteConnection) throws -> Bool {
    try CompiledStatement.anyRow(in: "entry_use", db)
  }

  /// Folds every recorded use into its entry's row and empties the table, in the caller's
  /// write transaction. Cheap when the table is empty.
  static func merge(_ db: SQLiteConnection) throws {
    // `+`: walk the uses and find each entry by its rowid, never walk the entries.
    try db.cachedStatement(
      """
      UPDATE entry SET last_access = max(entry.last_access, entry_use.last_access),
      access_count = entry.access_count + entry_use.access_count
      FROM entry_use WHERE entry.rowid = +entry_use.entry_rowid
      """
    ).execute()
    try db.cachedStatement("DELETE FROM entry_use").execute()
  }

  /// The query of the rows (their uses folded in) of `count` keys, `count` a padded size
  /// (``PaddedBatch``): built once per size, not per lookup.
  static func selectByKeys(count: Int) -> String {
    guard count > 0 && count <= PaddedBatch.limit && count.nonzeroBitCount == 1 else {
      return selectByKeys(PaddedBatch.list(of: "?", count: count))
    }
    // One key (a hit, `fetch`, `query`) builds only its own: the nine sizes together cost a
    // process that asks for one key about 700,000 instructions.
    return count == 1 ? selectByOneKey : selectsByKeys[count.trailingZeroBitCount]
  }

  private static let selectByOneKey = selectByKeys(PaddedBatch.list(of: "?", count: 1))

  private static let selectsByKeys = (0...PaddedBatch.limit.trailingZeroBitCount).map {
    selectByKeys(PaddedBatch.list(of: "?", count: 1 << $0))
  }

  /// Bound to the keys' digests (``KeyDigest``): a row whose key is not one asked for (a key
  /// that shares its digest) is the caller's to drop.
  private static func selectByKeys(_ list: String) -> String {
    "SELECT \(mergedSelectList), EXISTS (SELECT 1 FROM failed_request) FROM \(joined) "
      + "WHERE entry.digest IN (\(list))"
  }

  /// The column of ``selectByKeys(count:)`` after the entry's: whether any failed request is
  /// recorded, read in the same statement (one read lock for a hit, not two).
  static let failuresColumn = CacheEntry.Columns.all.count

  /// The row of `key` with its recorded use folded in (see ``mergedSelectList``).
  static func entry(forKey key: String, _ db: SQLiteConnection) throws -> CacheEntry? {
    let statement = try db.cachedStatement(
      "SELECT \(mergedSelectList) FROM \(joined) WHERE \(IndexSchema.byKey)")
    return try statement.firstRow([StoredForm.digest(KeyDigest(key: key)), key])
      .map(CacheEntry.init(row:))
  }

  /// The row of `key` with its use folded in, the use deleted: for a write transaction that
  /// rewrites the row with these values.
  static func take(key: String, _ db: SQLiteConnection) throws -> CacheEntry? {
    guard let entry = try entry(forKey: key, db) else { return nil }
    try forget(key: key, db)
    return entry
  }

  /// Deletes the recorded use of `key`'s entry, in a write transaction that rewrites its row.
  static func forget(key: String, _ db: SQLiteConnection) throws {
    try db.cachedStatement(
      """
      DELETE FROM entry_use WHERE entry_rowid = (SELECT rowid FROM entry WHERE \(IndexSchema.byKey))
      """
    ).execute([StoredForm.digest(KeyDigest(key: key)), key])
  }

  /// Deletes the recorded use of the entry of `rowid`, in a write transaction that rewrites
  /// its row (a store, which has just read the rowid: no second look-up by key).
  static func forget(rowid: Int64, _ db: SQLiteConnection) throws {
    try db.cachedStatement("DELETE FROM entry_use WHERE entry_rowid = ?")
      .execute([rowid])
  }
}
