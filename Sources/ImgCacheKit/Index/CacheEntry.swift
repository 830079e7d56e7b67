import FoundationEssentials

/// One row of the index: a cached body and its metadata.
///
/// Its fields, except its use (``lastAccess``, ``accessCount``), live in one shared box, copied
/// when a copy changes (copy on write): an entry travels by value from the index through a
/// hit, a job's outcome and an event to the output, and copying its fields, up to nine of
/// them strings, at each step cost a warm prefetch thousands of instructions a URL in
/// reference counting.
public struct CacheEntry: Sendable, Equatable {

  private var box: Box

  /// The cache key (the URL without its fragment, unless a filter or explicit key said otherwise).
  public var key: String {
    get { box.fields.key }
    set {
      fields.key = newValue
      fields.digest = KeyDigest(key: newValue)
    }
  }
  /// The MD5 of the key: its row's identity and its file's name (``KeyDigest``).
  public var digest: KeyDigest { box.fields.digest }
  /// The URL the body was fetched from.
  public var url: String {
    get { box.fields.url }
    set { fields.url = newValue }
  }
  /// The file under `data/`, as `ab/<md5>[.ext]`.
  public var file: String {
    get { StoredForm.file(stored: box.fields.file, digest: digest) }
    set { fields.file = StoredForm.file(newValue, digest: digest) }
  }
  /// Logical size in bytes.
  public var size: Int64 {
    get { box.fields.size }
    set { fields.size = newValue }
  }
  /// Allocated size on disk in bytes (what size limits are checked against, as SDWebImage).
  public var allocated: Int64 {
    get { box.fields.allocated }
    set { fields.allocated = newValue }
  }
  /// The image format's name (``ImageFormat/rawValue``), nil for a non-image body.
  public var format: String? {
    get { box.fields.format }
    set { fields.format = newValue }
  }
  /// Width in pixels.
  public var width: Int? {
    get { box.fields.width }
    set { fields.width = newValue }
  }
  /// Height in pixels.
  public var height: Int? {
    get { box.fields.height }
    set { fields.height = newValue }
  }
  /// Display scale from the key (@2x, @3x).
  public var scale: Int {
    get { box.fields.scale }
    set { fields.scale = newValue }
  }
  /// The `Content-Type` the server sent.
  public var contentType: String? {
    get { box.fields.contentType }
    set { fields.contentType = newValue }
  }
  /// The `ETag` the server sent.
  public var etag: String? {
    get { box.fields.etag }
    set { fields.etag = newValue }
  }
  /// The `Last-Modified` the server sent.
  public var lastModified: String? {
    get { box.fields.lastModified }
    set { fields.lastModified = newValue }
  }
  /// When the entry was stored.
  public var created: Date {
    get { box.fields.created }
    set { fields.created = newValue }
  }
  /// When the entry was last used (the LRU clock). Kept beside the box, as ``accessCount``:
  /// a hit changes them, and a change of them then copies no other field.
  public var lastAccess: Date
  /// When the entry expires regardless of use, if ever.
  public var expiry: Date? {
    get { box.fields.expiry }
    set { fields.expiry = newValue }
  }
  /// How many times the entry was used.
  public var accessCount: Int
  /// The lowercase hex SHA-256 of the body (nil for entries stored before it was kept).
  public var sha256: String? {
    get { box.fields.sha256?.hex }
    set { fields.sha256 = newValue.map(StoredSHA256.init) }
  }
  /// What the origin said about reusing the response (schema v4; empty before).
  public var freshness: ResponseFreshness {
    get { box.fields.freshness }
    set { fields.freshness = newValue }
  }
  /// Whether the request it came from could be anyone's (no credentials, cookies or headers of
  /// a user's own), or it came from the shared remote tier (schema v6; false before: unknown).
  public var shareable: Bool {
    get { box.fields.shareable }
    set { fields.shareable = newValue }
  }

  /// The fields, for a change: the box is copied first unless this entry alone holds it.
  private var fields: Fields {
    get { box.fields }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
      yield &box.fields
    }
  }

  public static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
    lhs.lastAccess == rhs.lastAccess && lhs.accessCount == rhs.accessCount
      && (lhs.box === rhs.box || lhs.box.fields == rhs.box.fields)
  }

  /// The columns of the `entry` table (``EntryColumn``), in the table's order.
  public typealias Columns = EntryColumn

  /// ``Columns/all`` as an SQL select list, for raw queries of entries.
  package static let selectList = Columns.all.map(\.name).concatenated(separator: ", ")

  /// Decodes a row of ``selectList`` by position (``init(columns:)``).
  package init(row: SQLiteRow) throws { try self.init(columns: row) }

  /// Decodes the columns of ``selectList`` by position: by hand and without name
  /// look-ups, several times faster than `Decodable` or `row[column]` on the hit path. The
  /// fields the row keeps in a shorter form (``StoredForm``) are given back whole.
  init(columns row: some ColumnReader) throws {
    typealias At = EntryColumn
    let key: String = try row.value(At.key)
    let digest = try StoredForm.digest(stored: row, at: At.digest.rawValue)
    let format: String? = try row.value(At.format)
    box = Box(
      Fields(
        key: key, digest: digest, url: StoredForm.url(stored: try row.value(At.url), key: key),
        file: try row.value(At.file), size: try row.value(At.size),
        allocated: try row.value(At.allocated), format: format, width: try row.value(At.width),
        height: try row.value(At.height), scale: try row.value(At.scale),
        contentType: StoredForm.contentType(stored: try row.value(At.contentType), format: format),
        etag: try row.value(At.etag),
        lastModified: try StoredForm.httpDate(stored: row, at: At.lastModified.rawValue),
        created: Date(timeIntervalSince1970: try row.value(At.created)),
        expiry: (try row.value(At.expiry) as Double?).map(Date.init(timeIntervalSince1970:)),
        sha256: try StoredSHA256(stored: row, at: At.sha256.rawValue),
        freshness: ResponseFreshness(
          cacheControl: try row.value(At.cacheControl),
          expires: try StoredForm.httpDate(stored: row, at: At.expires.rawValue),
          date: try StoredForm.httpDate(stored: row, at: At.date.rawValue),
          age: try row.value(At.age),
          received: (try row.value(At.received) as Double?).map(
            Date.init(timeIntervalSince1970:)),
          status: try row.value(At.status)),
        shareable: try row.value(At.shareable)))
    lastAccess = Date(timeIntervalSince1970: try row.value(At.lastAccess))
    accessCount = try row.value(At.accessCount)
  }

  /// Creates the entry of a body stored under `key` at `time`.
  package init(
    key: String, url: String, file: String, size: Int64, allocated: Int64,
    metadata: EntryMetadata, at time: Date
  ) {
    let digest = KeyDigest(key: key)
    box = Box(
      Fields(
        key: key, digest: digest, url: url,
        file: StoredForm.file(file, digest: digest), size: size,
        allocated: allocated, format: metadata.format?.rawValue, width: metadata.width,
        height: metadata.height, scale: CacheKey.scale(of: key),
        contentType: metadata.contentType, etag: metadata.etag,
        lastModified: metadata.lastModified, created: time, expiry: metadata.expiry,
        sha256: metadata.sha256.map(StoredSHA256.init), freshness: metadata.freshness,
        shareable: metadata.shareable))
    lastAccess = time
    accessCount = 0
  }

  /// The database values, in the order of ``EntryColumn/allCases`` (the table's), in their
  /// stored forms (``StoredForm``).
  var values: [SQLiteValue] { EntryColumn.all.map(storedValue(of:)) }

  /// The value `column` keeps, in its stored form: each made by its own type's conversion (no
  /// existential box a value, which cost a store ≈800 instructions a column).
  private func storedValue(of column: EntryColumn) -> SQLiteValue {
    switch column {
    case .key: key.sqliteValue
    case .url: StoredForm.url(url, key: key)
    case .file: box.fields.file.sqliteValue
    case .size: size.sqliteValue
    case .allocated: allocated.sqliteValue
    case .format: format.sqliteValue
    case .width: width.sqliteValue
    case .height: height.sqliteValue
    case .scale: scale.sqliteValue
    case .contentType: StoredForm.contentType(contentType, format: format)
    case .etag: etag.sqliteValue
    case .lastModified: StoredForm.httpDate(lastModified)
    case .created: created.timeIntervalSince1970.sqliteValue
    case .lastAccess: lastAccess.timeIntervalSince1970.sqliteValue
    case .expiry: (expiry?.timeIntervalSince1970).sqliteValue
    case .accessCount: accessCount.sqliteValue
    case .sha256: box.fields.sha256?.sqliteValue ?? .null
    case .cacheControl: freshness.cacheControl.sqliteValue
    case .expires: StoredForm.httpDate(freshness.expires)
    case .date: StoredForm.httpDate(freshness.date)
    case .age: freshness.age.sqliteValue
    case .received: (freshness.received?.timeIntervalSince1970).sqliteValue
    case .status: freshness.status.sqliteValue
    case .shareable: shareable.sqliteValue
    case .digest: StoredForm.digest(digest)
    case .digestLow: StoredForm.digestLow(digest)
    }
  }

  /// The metadata part of the entry.
  public var metadata: EntryMetadata {
    var metadata = EntryMetadata(
      format: format.flatMap(ImageFormat.init(rawValue:)), width: width, height: height,
      contentType: contentType, etag: etag, lastModified: lastModified, expiry: expiry,
      sha256: sha256, freshness: freshness)
    metadata.shareable = shareable
    return metadata
  }
}

/// The running totals of the index, kept in the same transaction as every insert and delete.
public struct CacheTotals: Sendable, Equatable {
  /// Number of entries.
  public var entries: Int
  /// Sum of logical sizes in bytes.
  public var bytes: Int64
  /// Sum of allocated sizes in bytes.
  public var allocated: Int64

  /// Creates totals.
  public init(entries: Int = 0, bytes: Int64 = 0, allocated: Int64 = 0) {
    self.entries = entries
    self.bytes = bytes
    self.allocated = allocated
  }

  /// No entries.
  public static let zero = CacheTotals()
}
