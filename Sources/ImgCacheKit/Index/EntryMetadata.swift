import FoundationEssentials

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
