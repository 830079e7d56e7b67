/// Schema v9, the lean index (docs/design.md, On disk): an entry is found by the MD5 of its key
/// (its first 8 bytes, `digest`, an integer under an index; then the key is compared) instead
/// of by its key (a second copy of every key in `sqlite_autoindex_entry_1`) and its file (a
/// third copy of the name in `entry_file`), and the fields a row can give back are not written
/// twice (``StoredForm``). 494 bytes an entry became about 250 for the benchmark's URLs.
extension IndexSchema {
  /// The `entry` table of v9: v8's columns in v8's order (``CacheEntry/init(columns:)`` reads
  /// them by position), then `digest` and `digest_low`; the dates of HTTP declared without a
  /// type, so a number stays a number. `file` is `file_ext`: an older imgcache, which knows no
  /// v9, fails on the column it misses rather than read every row's file as gone (and delete
  /// every body as an orphan).
  static let leanEntryTable = """
    CREATE TABLE entry (
      key TEXT NOT NULL, url TEXT, file_ext TEXT NOT NULL, size INTEGER NOT NULL, allocated INTEGER NOT NULL,
      format TEXT, width INTEGER, height INTEGER, scale INTEGER NOT NULL DEFAULT 1,
      content_type TEXT, etag TEXT, last_modified, created DOUBLE NOT NULL,
      last_access DOUBLE NOT NULL, expiry DOUBLE, access_count INTEGER NOT NULL DEFAULT 0,
      sha256 BLOB, cache_control TEXT, expires, date, age TEXT, received DOUBLE, status INTEGER,
      shareable BOOLEAN NOT NULL DEFAULT 0, digest INTEGER NOT NULL, digest_low INTEGER NOT NULL
    );
    CREATE INDEX entry_digest ON entry(digest);
    """

  /// The indexes of `entry` besides `entry_digest`: the LRU order (`clean`), and `list --sort
  /// created|size` (values that change only when stored).
  static let entryOrderIndexes = """
    CREATE INDEX entry_last_access ON entry(last_access);
    CREATE INDEX entry_created ON entry(created);
    CREATE INDEX entry_size ON entry(size);
    """

  /// The `variant` table of v9: the original's digest beside its key (a variant's check joins
  /// its original by the index), the source's SHA-256 in 32 bytes.
  static let leanVariantTable = """
    CREATE TABLE variant (
      key TEXT PRIMARY KEY NOT NULL, original TEXT NOT NULL, original_digest INTEGER NOT NULL,
      spec TEXT NOT NULL, source_sha256 BLOB
    );
    CREATE INDEX variant_by_original ON variant(original);
    """

  /// Rewrites v8's `entry` and `variant` tables in v9's form, each row with its rowid (the uses
  /// recorded in `entry_use` keep their rows), then the totals from the rows.
  static func makeLean(_ db: SQLiteConnection) throws {
    let functions = v9Functions
    for function in functions { try db.add(function) }
    defer {
      for function in functions {
        db.remove(function: function.name, argumentCount: function.argumentCount)
      }
    }
    let columns = CacheEntry.Columns.all.map(\.name)
    let copied = columns.map { name -> String in
      switch name {
      case "url": "NULLIF(url, key)"
      case "file_ext": "imgcache_v9_file(file, key)"
      case "content_type": "imgcache_v9_content_type(content_type, format)"
      case "last_modified", "expires", "date": "imgcache_v9_date(\(name))"
      case "sha256": "imgcache_v9_sha256(sha256)"
      case "digest": "imgcache_v9_digest(key)"
      case "digest_low": "imgcache_v9_digest_low(key)"
      default: name
      }
    }
    // The triggers on `entry` go first (renaming a table rewrites the triggers that name it)
    // and are made again on the new tables.
    try db.execute(
      sql: """
        DROP TRIGGER entry_use_forget;
        DROP TRIGGER variant_forget;
        ALTER TABLE variant RENAME TO variant_v8;
        DROP INDEX variant_by_original;
        \(leanVariantTable)
        INSERT INTO variant (key, original, original_digest, spec, source_sha256)
        SELECT key, original, imgcache_v9_digest(original), spec, imgcache_v9_sha256(source_sha256)
        FROM variant_v8;
        DROP TABLE variant_v8;
        ALTER TABLE entry RENAME TO entry_v8;
        \(leanEntryTable)
        INSERT INTO entry (rowid, \(columns.joined(separator: ", ")))
        SELECT rowid, \(copied.joined(separator: ", ")) FROM entry_v8 ORDER BY rowid;
        DROP TABLE entry_v8;
        \(entryOrderIndexes)
        \(EntryUses.forgetTrigger)
        \(VariantLinks.forgetTrigger)
        DELETE FROM entry_use WHERE entry_rowid NOT IN (SELECT rowid FROM entry);
        UPDATE totals SET entries = (SELECT COUNT(*) FROM entry),
        bytes = (SELECT COALESCE(SUM(size), 0) FROM entry),
        allocated = (SELECT COALESCE(SUM(allocated), 0) FROM entry) WHERE id = 1;
        """)
  }

  /// The conversions v9's copy runs inside SQL, one a stored form (``StoredForm``).
  private static var v9Functions: [SQLiteFunction] {
    [
      function("imgcache_v9_digest", 1) { $0[0].map { StoredForm.digest(KeyDigest(key: $0)) } },
      function("imgcache_v9_digest_low", 1) {
        $0[0].map { StoredForm.digestLow(KeyDigest(key: $0)) }
      },
      function("imgcache_v9_file", 2) { arguments in
        guard let file = arguments[0], let key = arguments[1] else { return nil }
        return StoredForm.file(file, digest: KeyDigest(key: key)).sqliteValue
      },
      function("imgcache_v9_content_type", 2) { StoredForm.contentType($0[0], format: $0[1]) },
      function("imgcache_v9_date", 1) { StoredForm.httpDate($0[0]) },
      function("imgcache_v9_sha256", 1) { StoredForm.sha256($0[0]) },
    ]
  }

  /// A function of the migration over text arguments (NULL stays NULL where a stored form says
  /// so).
  private static func function(
    _ name: String, _ count: Int32, _ body: @escaping @Sendable ([String?]) -> SQLiteValue?
  ) -> SQLiteFunction {
    SQLiteFunction(name, argumentCount: count) { values in
      body(values.map { String(sqliteValue: $0) }) ?? .null
    }
  }
}
