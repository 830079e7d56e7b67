import FoundationEssentials
import ImgCacheKit

/// JSON output: one object per line, snake_case keys (from the Swift names), sizes in bytes,
/// durations in seconds, times in RFC 3339. Every record is documented in docs/json.md.
enum Records {
  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// The decoder matching the encoder, for tests and for tools reading the output.
  static var decoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }

  /// One line of JSON.
  static func line(_ record: some Encodable) -> String {
    guard let data = try? encoder.encode(record) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}

/// The stored metadata of an entry, shared by `fetch`, `prefetch` and `query` records.
struct EntryFields: Codable, Equatable {
  var size: Int64
  var diskSize: Int64
  @Nullable var format: String?
  @Nullable var width: Int?
  @Nullable var height: Int?
  var scale: Int
  @Nullable var contentType: String?
  @Nullable var etag: String?
  @Nullable var lastModified: String?
  @Nullable var sha256: String?
  var created: Date
  var lastAccess: Date
  var accessCount: Int
  @Nullable var expiry: Date?
  @Nullable var cacheControl: String?
  @Nullable var expires: String?
  var freshUntil: Date
  var fresh: Bool

  /// The fields of `entry`; `freshUntil` and `fresh` are what `freshness` decides now.
  init(_ entry: CacheEntry, freshness: FreshnessPolicy) {
    size = entry.size
    diskSize = entry.allocated
    format = entry.format
    width = entry.width
    height = entry.height
    scale = entry.scale
    contentType = entry.contentType
    etag = entry.etag
    lastModified = entry.lastModified
    sha256 = entry.sha256
    created = entry.created
    lastAccess = entry.lastAccess
    accessCount = entry.accessCount
    expiry = entry.expiry
    cacheControl = entry.freshness.cacheControl
    expires = entry.freshness.expires
    let verdict = freshness.verdict(on: entry, at: Date())
    freshUntil = verdict.freshUntil
    fresh = verdict.isFresh
  }
}

/// An error in a record.
struct ErrorRecord: Codable, Equatable {
  var kind: String
  var message: String
  @Nullable var httpStatus: Int?

  init(_ error: CacheError) {
    kind = error.kind.rawValue
    message = error.message
    httpStatus = error.httpStatus
  }
}

/// One URL of `fetch --json` or `prefetch --json`.
struct FetchRecord: Codable {
  var url: String
  var key: String
  /// `hit`, `downloaded`, `revalidated`, `not_modified`, `stale`, `not_stored`,
  /// `offline_miss` or `error`.
  var status: String
  /// `local` or `read_only`, for a cached body.
  var source: String?
  var path: String?
  var exitCode: Int32
  var downloadedBytes: Int64
  var error: ErrorRecord?
  /// Whether a stored copy stood in for a failed revalidation (stale-if-error).
  var stale = false
  /// Why the revalidation failed, when `stale`.
  var revalidationError: ErrorRecord?
  /// The variant served, when one was asked for (null otherwise).
  var variant: VariantRecord?
  /// Flattened into the record.
  var entry: EntryFields?

  init(_ result: FetchResult, path output: String? = nil, freshness: FreshnessPolicy) {
    url = result.url
    key = result.key
    downloadedBytes = result.bytes
    variant = result.variant.map(VariantRecord.init)
    switch result.outcome {
    case .success(let outcome):
      status = outcome.name
      path = output ?? outcome.path
      exitCode = outcome == .offlineMiss ? ExitStatus.negative : ExitStatus.ok
      switch outcome {
      case .hit(.local(let stored, _)), .downloaded(let stored, _), .revalidated(let stored, _),
        .notModified(let stored, _), .derived(let stored, _):
        entry = EntryFields(stored, freshness: freshness)
        source = "local"
      case .stale(let stored, _, let error):
        entry = EntryFields(stored, freshness: freshness)
        source = "local"
        stale = true
        revalidationError = ErrorRecord(error)
      case .hit(.remote(let stored, _, _)):
        entry = EntryFields(stored, freshness: freshness)
        source = "remote"
      case .hit(.readOnly):
        source = "read_only"
      case .offlineMiss, .notStored:
        break
      }
    case .failure(let failure):
      status = failure.kind == .disallowed ? "disallowed" : "error"
      exitCode = ExitStatus.code(for: failure.kind)
      error = ErrorRecord(failure)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case url, key, status, source, path, exitCode, downloadedBytes, error, stale
    case revalidationError, variant
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    url = try container.decode(String.self, forKey: .url)
    key = try container.decode(String.self, forKey: .key)
    status = try container.decode(String.self, forKey: .status)
    source = try container.decodeIfPresent(String.self, forKey: .source)
    path = try container.decodeIfPresent(String.self, forKey: .path)
    exitCode = try container.decode(Int32.self, forKey: .exitCode)
    downloadedBytes = try container.decode(Int64.self, forKey: .downloadedBytes)
    error = try container.decodeIfPresent(ErrorRecord.self, forKey: .error)
    stale = try container.decode(Bool.self, forKey: .stale)
    revalidationError = try container.decodeIfPresent(
      ErrorRecord.self, forKey: .revalidationError)
    variant = try container.decodeIfPresent(VariantRecord.self, forKey: .variant)
    entry = source == "local" || source == "remote" ? try EntryFields(from: decoder) : nil
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(url, forKey: .url)
    try container.encode(key, forKey: .key)
    try container.encode(status, forKey: .status)
    try container.encode(stale, forKey: .stale)
    try container.encode(revalidationError, forKey: .revalidationError)
    try container.encode(source, forKey: .source)
    try container.encode(path, forKey: .path)
    try container.encode(exitCode, forKey: .exitCode)
    try container.encode(downloadedBytes, forKey: .downloadedBytes)
    try container.encode(error, forKey: .error)
    try container.encode(variant, forKey: .variant)
    try entry?.encode(to: encoder)
  }
}

/// The `variant` object of a record: the variant served and what it was made from.
struct VariantRecord: Codable, Equatable {
  /// The canonical spec (versioned, every default written out).
  var spec: String
  @Nullable var width: Int?
  @Nullable var height: Int?
  /// The format produced (`jpeg`, `png`, `webp`, `avif`, `gif`).
  @Nullable var format: String?
  /// The original's key.
  var originalKey: String

  init(_ info: VariantInfo) {
    spec = info.spec
    width = info.width
    height = info.height
    format = info.format?.rawValue
    originalKey = info.originalKey
  }
}

/// One URL of `query --json`.
struct QueryRecord: Codable {
  var url: String
  var key: String
  var cached: Bool
  var path: String?
  var source: String?
  var blacklisted: Bool
  var failure: FailureRecord?
  /// The original's key when this is a variant, else null.
  var variantOf: String?
  var entry: EntryFields?

  private enum CodingKeys: String, CodingKey {
    case url, key, cached, path, source, blacklisted, failure, variantOf
  }

  init(
    url: String, key: String, hit: CacheHit?, failure: FailedURL?, freshness: FreshnessPolicy,
    variantOf: String? = nil
  ) {
    self.url = url
    self.key = key
    self.variantOf = variantOf
    cached = hit != nil
    path = hit?.path
    blacklisted = failure != nil
    self.failure = failure.map(FailureRecord.init)
    switch hit {
    case .local(let stored, _)?:
      source = "local"
      entry = EntryFields(stored, freshness: freshness)
    case .remote(let stored, _, _)?:
      source = "remote"
      entry = EntryFields(stored, freshness: freshness)
    case .readOnly?: source = "read_only"
    case nil: break
    }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    url = try container.decode(String.self, forKey: .url)
    key = try container.decode(String.self, forKey: .key)
    cached = try container.decode(Bool.self, forKey: .cached)
    path = try container.decodeIfPresent(String.self, forKey: .path)
    source = try container.decodeIfPresent(String.self, forKey: .source)
    blacklisted = try container.decode(Bool.self, forKey: .blacklisted)
    failure = try container.decodeIfPresent(FailureRecord.self, forKey: .failure)
    variantOf = try container.decodeIfPresent(String.self, forKey: .variantOf)
    entry = source == "local" ? try EntryFields(from: decoder) : nil
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(url, forKey: .url)
    try container.encode(key, forKey: .key)
    try container.encode(cached, forKey: .cached)
    try container.encode(path, forKey: .path)
    try container.encode(source, forKey: .source)
    try container.encode(blacklisted, forKey: .blacklisted)
    try container.encode(failure, forKey: .failure)
    try container.encode(variantOf, forKey: .variantOf)
    try entry?.encode(to: encoder)
  }
}

/// A failed-request record: the `failure` of `query --json`, and each line of
/// `list --failed --json`.
struct FailureRecord: Codable {
  var url: String
  var reason: String
  var kind: String
  @Nullable var httpStatus: Int?
  var count: Int
  var firstFailure: Date
  var lastFailure: Date

  init(_ failure: FailedURL) {
    url = failure.url
    reason = failure.reason
    kind = failure.kind
    httpStatus = failure.httpStatus
    count = failure.count
    firstFailure = failure.firstFailure
    lastFailure = failure.lastFailure
  }
}
