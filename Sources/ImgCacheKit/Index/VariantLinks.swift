/// What links a variant's entry to its original (docs/design.md, Variants): the variant is an
/// entry like any other (its key the original's key + `#` + the canonical spec), and this row
/// says which original it was derived from, with which spec, from which body.
public struct VariantLink: Sendable, Equatable {
  /// The variant's key (the derived key).
  public var key: String
  /// The original's key.
  public var original: String
  /// The canonical spec (``VariantSpec/canonical``).
  public var spec: String
  /// The SHA-256 of the original's body it was derived from, when known: an original
  /// replaced by another body makes the variant out of date.
  public var sourceSHA256: String?

  /// Creates a link.
  public init(key: String, original: String, spec: String, sourceSHA256: String?) {
    (self.key, self.original, self.spec, self.sourceSHA256) = (key, original, spec, sourceSHA256)
  }
}

/// The original a variant was made from: its body's SHA-256 and its size in pixels (as its
/// headers give it, before any rotation). Travels with a variant's remote object.
public struct VariantSource: Sendable, Equatable {
  public var sha256: String
  public var width: Int
  public var height: Int

  package init(sha256: String, width: Int, height: Int) {
    (self.sha256, self.width, self.height) = (sha256, width, height)
  }

  /// The stored `original`, as its variants' source; nil when its SHA-256 or size is unknown.
  package init?(original: CacheEntry) {
    guard let sha256 = original.sha256, let width = original.width, let height = original.height
    else { return nil }
    self.init(sha256: sha256, width: width, height: height)
  }
}

/// The `variant` table (schema v8): one row per variant entry. A trigger deletes the row of
/// an entry deleted by any statement (`clean`, `remove`, `verify --repair`), so a link never
/// outlives its variant; an original's deletion leaves its variants (and their links).
enum VariantLinks {
  /// Creates the table, its index by original and its trigger (schema v8).
  static func create(_ db: SQLiteConnection) throws {
    try db.execute(
      sql: """
        CREATE TABLE variant (
          key TEXT PRIMARY KEY NOT NULL,
          original TEXT NOT NULL,
          spec TEXT NOT NULL,
          source_sha256 TEXT
        );
        CREATE INDEX variant_by_original ON variant(original);
        \(forgetTrigger)
        """)
  }

  /// The trigger that deletes the link of a deleted variant (made again with v9's `entry`).
  static let forgetTrigger = """
    CREATE TRIGGER variant_forget AFTER DELETE ON entry
    BEGIN DELETE FROM variant WHERE key = OLD.key; END;
    """

  /// Records `link` (replacing an older one of the same variant), in the caller's transaction.
  static func record(_ link: VariantLink, _ db: SQLiteConnection) throws {
    try db.cachedStatement(
      """
      INSERT OR REPLACE INTO variant (key, original, original_digest, spec, source_sha256)
      VALUES (?, ?, ?, ?, ?)
      """
    ).execute([
      link.key, link.original, StoredForm.digest(KeyDigest(key: link.original)), link.spec,
      StoredForm.sha256(link.sourceSHA256),
    ])
  }

  /// The links of those `keys` that are variants: one query a batch of keys, none when
  /// there is no variant at all (`list` asks for every page).
  static func links(forKeys keys: [String], _ db: SQLiteConnection) throws -> [String: VariantLink]
  {
    var links = [String: VariantLink]()
    guard !keys.isEmpty, try CompiledStatement.anyRow(in: "variant", db) else { return links }
    for (size, padded) in PaddedBatch.chunks(of: keys) {
      let statement = try db.cachedStatement(
        "SELECT key, original, spec, source_sha256 FROM variant WHERE key IN ("
          + PaddedBatch.list(of: "?", count: size) + ")")
      for row in try statement.rows(padded) {
        let key: String = try row.value(0)
        links[key] = VariantLink(
          key: key, original: try row.value(1), spec: try row.value(2),
          sourceSHA256: try StoredForm.sha256(stored: row, at: 3))
      }
    }
    return links
  }

  /// The query of those of `count` keys (a padded size, ``PaddedBatch``) whose variant was made
  /// from a body its original no longer has (both SHA-256 known and different).
  static func outdatedSQL(count: Int) -> String {
    """
    SELECT variant.key FROM variant
    JOIN entry ON entry.digest = variant.original_digest AND entry.key = variant.original
    WHERE variant.key IN (\(PaddedBatch.list(of: "?", count: count)))
    AND variant.source_sha256 != entry.sha256
    """
  }

  /// The keys of every variant of `original`.
  static func keys(ofOriginal original: String, _ db: SQLiteConnection) throws -> [String] {
    try db.values("SELECT key FROM variant WHERE original = ?", [original])
  }
}

extension Index {
  /// Those of `keys` whose variant is out of date (``VariantLinks/outdatedSQL(count:)``): one
  /// query a batch, prepared once on the direct connection, each key bound by position (a
  /// warm variant hit runs it for every key: 16,000 instructions a key through GRDB's cached
  /// statement and `String.fetchAll`, when GRDB opened the index).
  func outdatedVariants(_ keys: [String], _ db: SQLiteConnection) throws -> Set<String> {
    var outdated = Set<String>()
    for (size, padded) in PaddedBatch.chunks(of: keys) {
      let statement = try self.statement(.outdatedVariants(size: size), db) {
        VariantLinks.outdatedSQL(count: size)
      }
      statement.reset()
      for (index, key) in padded.enumerated() { try statement.bind(key, at: Int32(index + 1)) }
      try statement.run { row in outdated.insert(try row.value(0)) }
    }
    return outdated
  }

  /// Records `links` of variants already stored (a copy taken from the remote tier).
  package func recordVariantLinks(_ links: [VariantLink]) throws {
    guard !links.isEmpty else { return }
    try write { db in
      // Only of entries there are: a link never points from a missing row.
      let exists = try db.cachedStatement(
        "SELECT EXISTS (SELECT 1 FROM entry WHERE \(IndexSchema.byKey))")
      for link in links
      where try exists.firstValue([StoredForm.digest(KeyDigest(key: link.key)), link.key]) == true {
        try VariantLinks.record(link, db)
      }
    }
  }

  /// The originals the variants `keys` were made from, for those whose original is stored
  /// with the very body the link names (a variant out of date has none).
  package func variantSources(forKeys keys: [String]) throws -> [String: VariantSource] {
    guard !keys.isEmpty else { return [:] }
    return try read(orIfMissing: [:]) { db in
      let statement = try db.cachedStatement(
        """
        SELECT variant.source_sha256, entry.width, entry.height FROM variant
        JOIN entry ON entry.digest = variant.original_digest AND entry.key = variant.original
        WHERE variant.key = ? AND entry.sha256 = variant.source_sha256
        """)
      var sources = [String: VariantSource]()
      for key in keys {
        guard let row = try statement.firstRow([key]),
          let sha256 = try StoredForm.sha256(stored: row, at: 0), let width: Int = try row.value(1),
          let height: Int = try row.value(2)
        else { continue }
        sources[key] = VariantSource(sha256: sha256, width: width, height: height)
      }
      return sources
    }
  }

  /// The keys of every variant of `original`.
  package func variantKeys(ofOriginal original: String) throws -> [String] {
    try peek(orIfMissing: []) { db in try VariantLinks.keys(ofOriginal: original, db) }
  }
}

extension Index {
  /// The links of those `keys` that are variants (none when the index does not exist).
  package func variantLinks(forKeys keys: [String]) throws -> [String: VariantLink] {
    try read(orIfMissing: [:]) { try VariantLinks.links(forKeys: keys, $0) }
  }
}
