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

  /// Creates metadata; every field is optional.
  public init(
    format: ImageFormat? = nil, width: Int? = nil, height: Int? = nil, contentType: String? = nil,
    etag: String? = nil, lastModified: String? = nil, expiry: Date? = nil
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.contentType = contentType
    self.etag = etag
    self.lastModified = lastModified
    self.expiry = expiry
  }
}

/// One row of the index: a cached body and its metadata.
public struct CacheEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
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

  enum CodingKeys: String, CodingKey {
    case key, url, file, size, allocated, format, width, height, scale
    case contentType = "content_type"
    case etag
    case lastModified = "last_modified"
    case created
    case lastAccess = "last_access"
    case expiry
    case accessCount = "access_count"
  }

  /// The metadata part of the entry.
  public var metadata: EntryMetadata {
    EntryMetadata(
      format: format.flatMap(ImageFormat.init(rawValue:)), width: width, height: height,
      contentType: contentType, etag: etag, lastModified: lastModified, expiry: expiry)
  }

  public static func databaseDateEncodingStrategy(for column: String)
    -> DatabaseDateEncodingStrategy
  {
    .timeIntervalSince1970
  }
  public static func databaseDateDecodingStrategy(for column: String)
    -> DatabaseDateDecodingStrategy
  {
    .timeIntervalSince1970
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
