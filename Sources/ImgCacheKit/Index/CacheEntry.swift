import Foundation
import GRDB

/// What the engine knows of a stored body besides its bytes.
public struct EntryMetadata: Sendable, Equatable {
  /// The image format (``ImageFormat``), or nil for a body stored with "any body".
  public var format: ImageFormat?
  /// Width in pixels, when the headers tell it.
  public var width: Int?
  /// Height in pixels, when the headers tell it.
  public var height: Int?
  /// The `Content-Type` the server sent.
  public var contentType: String?
  /// The `ETag` the server sent.
  public var etag: String?
  /// The `Last-Modified` the server sent.
  public var lastModified: String?
  /// When the entry expires regardless of use, if ever.
  public var expiry: Date?
  /// The lowercase hex SHA-256 of the body, when known.
  public var sha256: String?
  /// What the origin said about reusing the response.
  public var freshness: ResponseFreshness
  /// Whether the body may be shared with other machines (see ``CacheEntry/shareable``).
  public var shareable = false

  /// Creates metadata; every field is optional.
  public init(
    format: ImageFormat? = nil, width: Int? = nil, height: Int? = nil, contentType: String? = nil,
    etag: String? = nil, lastModified: String? = nil, expiry: Date? = nil, sha256: String? = nil,
    freshness: ResponseFreshness = ResponseFreshness()
  ) {
    self.freshness = freshness
    self.format = format
    self.width = width
    self.height = height
    self.contentType = contentType
    self.etag = etag
    self.lastModified = lastModified
    self.expiry = expiry
    self.sha256 = sha256
  }
}

/// One row of the index: a cached body and its metadata.
public struct CacheEntry: Sendable, Equatable, FetchableRecord, PersistableRecord {
  public static let databaseTableName = "entry"

  /// The cache key (the URL without its fragment, unless a filter or explicit key said otherwise).
  public var key: String
  /// The URL the body was fetched from.
  public var url: String
  /// The file under `data/`, as `ab/<md5>[.ext]`.
  public var file: String
  /// Logical size in bytes.
  public var size: Int64
  /// Allocated size on disk in bytes (what size limits are checked against, as SDWebImage).
  public var allocated: Int64
  /// The image format's name (``ImageFormat/rawValue``), nil for a non-image body.
  public var format: String?
  /// Width in pixels.
  public var width: Int?
  /// Height in pixels.
  public var height: Int?
  /// Display scale from the key (@2x, @3x).
  public var scale: Int
  /// The `Content-Type` the server sent.
  public var contentType: String?
  /// The `ETag` the server sent.
  public var etag: String?
  /// The `Last-Modified` the server sent.
  public var lastModified: String?
  /// When the entry was stored.
  public var created: Date
  /// When the entry was last used (the LRU clock).
  public var lastAccess: Date
  /// When the entry expires regardless of use, if ever.
  public var expiry: Date?
  /// How many times the entry was used.
  public var accessCount: Int
  /// The lowercase hex SHA-256 of the body (nil for entries stored before it was kept).
  public var sha256: String?
  /// What the origin said about reusing the response (schema v4; empty before).
  public var freshness: ResponseFreshness
  /// Whether the request it came from could be anyone's (no credentials, cookies or headers of
  /// a user's own), or it came from the shared remote tier (schema v6; false before: unknown).
  public var shareable: Bool

  /// The columns of the `entry` table: the one place that names them.
  public enum Columns {
    public static let key = Column("key")
    public static let url = Column("url")
    public static let file = Column("file")
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

    /// Every column, in the order ``CacheEntry/values`` lists them.
    static let all = [
      key, url, file, size, allocated, format, width, height, scale, contentType, etag,
      lastModified, created, lastAccess, expiry, accessCount, sha256, cacheControl, expires,
      date, age, received, status, shareable,
    ]
  }

  /// What every query of entries selects: ``Columns/all``, in that order (the table's own).
  public static var databaseSelection: [any SQLSelectable] { Columns.all }

  /// ``Columns/all`` as an SQL select list, for raw queries of entries.
  static let selectList = Columns.all.map(\.name).joined(separator: ", ")

  /// Decodes a row of ``databaseSelection`` by position (``init(columns:)``).
  public init(row: Row) throws { try self.init(columns: row) }

  /// Decodes the columns of ``databaseSelection`` by position: by hand and without name
  /// look-ups, several times faster than `Decodable` or `row[column]` on the hit path.
  init(columns row: some ColumnReader) throws {
    key = try row.value(0)
    url = try row.value(1)
    file = try row.value(2)
    size = try row.value(3)
    allocated = try row.value(4)
    format = try row.value(5)
    width = try row.value(6)
    height = try row.value(7)
    scale = try row.value(8)
    contentType = try row.value(9)
    etag = try row.value(10)
    lastModified = try row.value(11)
    created = Date(timeIntervalSince1970: try row.value(12))
    lastAccess = Date(timeIntervalSince1970: try row.value(13))
    expiry = (try row.value(14) as Double?).map(Date.init(timeIntervalSince1970:))
    accessCount = try row.value(15)
    sha256 = try row.value(16)
    freshness = ResponseFreshness(
      cacheControl: try row.value(17), expires: try row.value(18), date: try row.value(19),
      age: try row.value(20),
      received: (try row.value(21) as Double?).map(Date.init(timeIntervalSince1970:)),
      status: try row.value(22))
    shareable = try row.value(23)
  }

  /// Creates the entry of a body stored under `key` at `time`.
  init(
    key: String, url: String, file: String, size: Int64, allocated: Int64,
    metadata: EntryMetadata, at time: Date
  ) {
    self.key = key
    self.url = url
    self.file = file
    self.size = size
    self.allocated = allocated
    format = metadata.format?.rawValue
    width = metadata.width
    height = metadata.height
    scale = CacheKey.scale(of: key)
    contentType = metadata.contentType
    etag = metadata.etag
    lastModified = metadata.lastModified
    created = time
    lastAccess = time
    expiry = metadata.expiry
    accessCount = 0
    sha256 = metadata.sha256
    freshness = metadata.freshness
    shareable = metadata.shareable
  }

  /// The database values, in the order of ``Columns/all``.
  var values: [(any DatabaseValueConvertible)?] {
    [
      key, url, file, size, allocated, format, width, height, scale, contentType, etag,
      lastModified, created.timeIntervalSince1970, lastAccess.timeIntervalSince1970,
      expiry?.timeIntervalSince1970, accessCount, sha256, freshness.cacheControl,
      freshness.expires, freshness.date, freshness.age, freshness.received?.timeIntervalSince1970,
      freshness.status, shareable,
    ]
  }

  public func encode(to container: inout PersistenceContainer) throws {
    for (column, value) in zip(Columns.all, values) { container[column] = value }
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
