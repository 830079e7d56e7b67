import Foundation
import GRDB

/// One row of the index: a cached body and its metadata.
///
/// Its fields, except its use (``lastAccess``, ``accessCount``), live in one shared box, copied
/// when a copy changes (copy on write): an entry travels by value from the index through a
/// hit, a job's outcome and an event to the output, and copying its fields, up to nine of
/// them strings, at each step cost a warm prefetch thousands of instructions a URL in
/// reference counting.
public struct CacheEntry: Sendable, Equatable, FetchableRecord, TableRecord {
  public static let databaseTableName = "entry"

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

  /// The columns of the `entry` table: the one place that names them.
  public enum Columns {
    public static let key = Column("key")
    public static let url = Column("url")
    /// `file_ext` from schema v9 (``StoredForm``): a name no older imgcache reads, so that
    /// one opening this index fails at once instead of misreading it.
    public static let file = Column("file_ext")
    public static let size = Column("size")
    public static let allocated = Column("allocated")
    public static let format = Column("format")
    public static let width = Column("width")
    public static let height = Column("height")
    public static let scale = Column("scale")
    public static let contentType = Column("content_type")
    public static let etag = Column("etag")
    public static let lastModified = Column("last_modified")
    public static let created = Column("created")
    public static let lastAccess = Column("last_access")
    public static let expiry = Column("expiry")
    public static let accessCount = Column("access_count")
    public static let sha256 = Column("sha256")
    public static let cacheControl = Column("cache_control")
    public static let expires = Column("expires")
    public static let date = Column("date")
    public static let age = Column("age")
    public static let received = Column("received")
    public static let status = Column("status")
    public static let shareable = Column("shareable")
    public static let digest = Column("digest")
    public static let digestLow = Column("digest_low")

    /// Every column, in the order ``CacheEntry/values`` lists them (the table's own).
    static let all = [
      key, url, file, size, allocated, format, width, height, scale, contentType, etag,
      lastModified, created, lastAccess, expiry, accessCount, sha256, cacheControl, expires,
      date, age, received, status, shareable, digest, digestLow,
    ]
  }

  /// What every query of entries selects: ``Columns/all``, in that order (the table's own).
  public static var databaseSelection: [any SQLSelectable] { Columns.all }

  /// ``Columns/all`` as an SQL select list, for raw queries of entries.
  static let selectList = Columns.all.map(\.name).joined(separator: ", ")

  /// Decodes a row of ``databaseSelection`` by position (``init(columns:)``).
  public init(row: Row) throws { try self.init(columns: row) }

  /// Decodes the columns of ``databaseSelection`` by position: by hand and without name
  /// look-ups, several times faster than `Decodable` or `row[column]` on the hit path. The
  /// fields the row keeps in a shorter form (``StoredForm``) are given back whole.
  init(columns row: some ColumnReader) throws {
    let key: String = try row.value(0)
    let digest = try StoredForm.digest(stored: row, at: 24)
    let format: String? = try row.value(5)
    box = Box(
      Fields(
        key: key, digest: digest, url: StoredForm.url(stored: try row.value(1), key: key),
        file: try row.value(2),
        size: try row.value(3), allocated: try row.value(4), format: format,
        width: try row.value(6), height: try row.value(7), scale: try row.value(8),
        contentType: StoredForm.contentType(stored: try row.value(9), format: format),
        etag: try row.value(10), lastModified: try StoredForm.httpDate(stored: row, at: 11),
        created: Date(timeIntervalSince1970: try row.value(12)),
        expiry: (try row.value(14) as Double?).map(Date.init(timeIntervalSince1970:)),
        sha256: try StoredSHA256(stored: row, at: 16),
        freshness: ResponseFreshness(
          cacheControl: try row.value(17), expires: try StoredForm.httpDate(stored: row, at: 18),
          date: try StoredForm.httpDate(stored: row, at: 19), age: try row.value(20),
          received: (try row.value(21) as Double?).map(Date.init(timeIntervalSince1970:)),
          status: try row.value(22)),
        shareable: try row.value(23)))
    lastAccess = Date(timeIntervalSince1970: try row.value(13))
    accessCount = try row.value(15)
  }

  /// Creates the entry of a body stored under `key` at `time`.
  init(
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

  /// The database values, in the order of ``Columns/all``, in their stored forms
  /// (``StoredForm``): each made by its own type's conversion (no existential box a value,
  /// which cost a store ≈800 instructions a column).
  var values: [DatabaseValue] {
    [
      key.databaseValue, StoredForm.url(url, key: key),
      box.fields.file.databaseValue, size.databaseValue,
      allocated.databaseValue, format.databaseValue, width.databaseValue, height.databaseValue,
      scale.databaseValue, StoredForm.contentType(contentType, format: format),
      etag.databaseValue, StoredForm.httpDate(lastModified),
      created.timeIntervalSince1970.databaseValue,
      lastAccess.timeIntervalSince1970.databaseValue,
      (expiry?.timeIntervalSince1970).databaseValue, accessCount.databaseValue,
      box.fields.sha256?.databaseValue ?? .null, freshness.cacheControl.databaseValue,
      StoredForm.httpDate(freshness.expires), StoredForm.httpDate(freshness.date),
      freshness.age.databaseValue, (freshness.received?.timeIntervalSince1970).databaseValue,
      freshness.status.databaseValue, shareable.databaseValue, StoredForm.digest(digest),
      StoredForm.digestLow(digest),
    ]
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
