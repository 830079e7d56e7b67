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

  /// Decodes a row by hand: several times faster than `Decodable` on hot paths.
  public init(row: Row) throws {
    key = row["key"]
    url = row["url"]
    file = row["file"]
    size = row["size"]
    allocated = row["allocated"]
    format = row["format"]
    width = row["width"]
    height = row["height"]
    scale = row["scale"]
    contentType = row["content_type"]
    etag = row["etag"]
    lastModified = row["last_modified"]
    created = Date(timeIntervalSince1970: row["created"])
    lastAccess = Date(timeIntervalSince1970: row["last_access"])
    expiry = (row["expiry"] as Double?).map(Date.init(timeIntervalSince1970:))
    accessCount = row["access_count"]
  }

  /// Creates an entry.
  public init(
    key: String, url: String, file: String, size: Int64, allocated: Int64, format: String?,
    width: Int?, height: Int?, scale: Int, contentType: String?, etag: String?,
    lastModified: String?, created: Date, lastAccess: Date, expiry: Date?, accessCount: Int
  ) {
    self.key = key
    self.url = url
    self.file = file
    self.size = size
    self.allocated = allocated
    self.format = format
    self.width = width
    self.height = height
    self.scale = scale
    self.contentType = contentType
    self.etag = etag
    self.lastModified = lastModified
    self.created = created
    self.lastAccess = lastAccess
    self.expiry = expiry
    self.accessCount = accessCount
  }

  public func encode(to container: inout PersistenceContainer) throws {
    container["key"] = key
    container["url"] = url
    container["file"] = file
    container["size"] = size
    container["allocated"] = allocated
    container["format"] = format
    container["width"] = width
    container["height"] = height
    container["scale"] = scale
    container["content_type"] = contentType
    container["etag"] = etag
    container["last_modified"] = lastModified
    container["created"] = created.timeIntervalSince1970
    container["last_access"] = lastAccess.timeIntervalSince1970
    container["expiry"] = expiry?.timeIntervalSince1970
    container["access_count"] = accessCount
  }

  /// The metadata part of the entry.
  public var metadata: EntryMetadata {
    EntryMetadata(
      format: format.flatMap(ImageFormat.init(rawValue:)), width: width, height: height,
      contentType: contentType, etag: etag, lastModified: lastModified, expiry: expiry)
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
