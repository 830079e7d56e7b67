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

/// One URL of `fetch --json` or `prefetch --json` (written ``flattened``).
struct FetchRecord: Encodable {
  var url: String
  var key: String
  /// `hit`, `downloaded`, `revalidated`, `not_modified`, `stale`, `not_stored`,
  /// `offline_miss` or `error`.
  var status: String
  /// `local` or `read_only`, for a cached body.
  @Nullable var source: String?
  @Nullable var path: String?
  var exitCode: Int32
  var downloadedBytes: Int64
  @Nullable var error: ErrorRecord?
  /// Whether a stored copy stood in for a failed revalidation (stale-if-error).
  var stale = false
  /// Why the revalidation failed, when `stale`.
  @Nullable var revalidationError: ErrorRecord?
  /// The variant served, when one was asked for (null otherwise).
  @Nullable var variant: VariantRecord?
  /// Written beside the record's own fields (``flattened``).
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

  /// Its own fields; the entry's go beside them (``flattened``).
  private enum CodingKeys: String, CodingKey {
    case url, key, status, source, path, exitCode, downloadedBytes, error, stale
    case revalidationError, variant
  }

  /// The line written: its fields and its entry's, in one object.
  var flattened: Flattened<Self, EntryFields> { Flattened(own: self, beside: entry) }
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

/// One URL of `query --json` (written ``flattened``).
struct QueryRecord: Encodable {
  var url: String
  var key: String
  var cached: Bool
  @Nullable var path: String?
  @Nullable var source: String?
  var blacklisted: Bool
  @Nullable var failure: FailureRecord?
  /// The original's key when this is a variant, else null.
  @Nullable var variantOf: String?
  /// Written beside the record's own fields (``flattened``).
  var entry: EntryFields?

  /// Its own fields; the entry's go beside them (``flattened``).
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

  /// The line written: its fields and its entry's, in one object.
  var flattened: Flattened<Self, EntryFields> { Flattened(own: self, beside: entry) }
}

/// A failed-request record: the `failure` of `query --json`, and each line of
/// `list --failed --json`.
struct FailureRecord: Codable, Equatable {
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
