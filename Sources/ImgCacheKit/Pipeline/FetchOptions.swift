import FoundationEssentials

/// How one fetch goes through the cache (SDWebImageManager's options, docs/design.md, Cache
/// semantics).
public struct FetchOptions: Sendable, Equatable {
  /// Where a fetch may get its body from.
  public enum Mode: String, Sendable, CaseIterable {
    /// Cache first, then the network.
    case normal
    /// The cache only; a miss is an ``FetchOutcome/offlineMiss`` (SDWebImage FromCacheOnly).
    case offline
    /// Skip the lookup and download; the result is still stored (FromLoaderOnly).
    case reload
    /// A conditional GET with the stored validators; 304 keeps the entry, 200 replaces it.
    case refresh
  }

  /// Where the body may come from. The default is `.normal`.
  public var mode = Mode.normal
  /// Ignore the failed-URL list; a success clears the URL from it. The default is false.
  public var retryFailed = false
  /// Accept any body, image or not. The default is false.
  public var acceptAnyBody = false
  /// How the cache key is made from the URL. The default keeps the query.
  public var keyFilter = KeyFilter.none
  /// A key to use instead of one made from the URL.
  public var explicitKey: String?
  /// How long a permanent failure keeps a URL blacklisted. The default is one day.
  public var failedTTL: TimeInterval = DiskCache.defaultFailedTTL
  /// Whether a hit records the access (LRU). The default is true.
  public var touch = true
  /// Whether hits are judged by HTTP freshness, and when a stale copy may stand in.
  public var freshness = FreshnessPolicy()
  /// Whether the remote tier is asked on a miss and written back after a download. True.
  public var useRemote = true
  /// The variant to serve instead of the original (a resize, a conversion), if any.
  public var variant: VariantSpec?
  /// Whether the original is dropped once its variant is stored. The default is false.
  public var discardOriginal = false
  /// The limits an original must fit before anything is decoded.
  public var derivationLimits = DerivationLimits()
  /// Whether robots.txt and `X-Robots-Tag` opt-outs are obeyed (`--robots`). Ignored by
  /// default, as curl and wget do for URLs given to them.
  public var robots = RobotsPolicy.ignore
  /// Whether a downloaded body is stored as a batch of one at once, instead of through the
  /// batcher's gathering (a single URL has nothing to batch with).
  var storesAlone = false

  /// The defaults.
  public init() {}

  /// The cache key of `url` under these options.
  public func key(for url: String) -> String {
    explicitKey ?? CacheKey.key(for: url, filter: keyFilter)
  }
}

/// Whether downloads obey robots.txt and `X-Robots-Tag` (policy `robots`, docs/design.md,
/// Politeness).
public enum RobotsPolicy: String, Sendable, CaseIterable {
  /// Every URL given is downloaded.
  case ignore
  /// A URL its host's robots.txt disallows for `imgcache` is not requested, and a response
  /// whose `X-Robots-Tag` opts out (`noimageai`, `noai`, `none`) is aborted before its body.
  case obey
}

/// What a successful fetch did.
public enum FetchOutcome: Sendable, Equatable {
  /// Served from the cache (or a read-only directory) without touching the network.
  case hit(CacheHit)
  /// Downloaded and stored.
  case downloaded(CacheEntry, path: String)
  /// A refresh got new content (200) and replaced the entry.
  case revalidated(CacheEntry, path: String)
  /// A refresh got 304: the entry was kept and its metadata updated.
  case notModified(CacheEntry, path: String)
  /// Offline mode and not cached: a negative answer, not an error.
  case offlineMiss
  /// A revalidation or refresh failed with `error` (a network error, 5xx or 429) and the
  /// stored copy, stale, was served in its place (stale-if-error).
  case stale(CacheEntry, path: String, error: CacheError)
  /// Downloaded and valid, but not cached: the origin said `no-store` (with `freshness =
  /// http`). The body is in the temporary file `body`, which the caller must delete.
  case notStored(body: String)
  /// A variant was derived from the original and stored (``FetchResult/variant`` says which).
  case derived(CacheEntry, path: String)

  /// The absolute path of the cached body, when there is one.
  public var path: String? {
    switch self {
    case .hit(let hit): return hit.path
    case .downloaded(_, let path), .revalidated(_, let path), .notModified(_, let path),
      .stale(_, let path, _), .derived(_, let path):
      return path
    case .offlineMiss, .notStored: return nil
    }
  }

  /// A short snake_case name for reports.
  public var name: String {
    switch self {
    case .hit: return "hit"
    case .downloaded: return "downloaded"
    case .revalidated: return "revalidated"
    case .notModified: return "not_modified"
    case .offlineMiss: return "offline_miss"
    case .stale: return "stale"
    case .notStored: return "not_stored"
    case .derived: return "derived"
    }
  }
}

/// The result of one fetch.
public struct FetchResult: Sendable {
  /// The URL as requested.
  public var url: String
  /// Its cache key (a variant's own key when a variant was served).
  public var key: String
  /// What happened, or why it failed.
  public var outcome: Result<FetchOutcome, CacheError>
  /// Bytes downloaded for this URL (0 for a hit).
  public var bytes: Int64
  /// The variant served, when one was asked for and served (derived now, or stored).
  public var variant: VariantInfo?
  /// What the URL's table row says of it, when it came from one.
  public var notes: RowNotes?
}

/// The variant a fetch served: what it is and what it was made from.
public struct VariantInfo: Sendable, Equatable {
  /// The variant's own key (the original's key, `#`, the canonical spec).
  public var key: String
  /// The canonical spec (``VariantSpec/canonical``).
  public var spec: String
  /// Its dimensions and format, as stored.
  public var width: Int?
  public var height: Int?
  public var format: ImageFormat?
  /// The original's key.
  public var originalKey: String
}

extension FetchResult {
  /// The answer to line `line` of a URL list that holds no URL (blank, or a comment):
  /// `fetch -i` answers every line, so a co-process never waits for one.
  public static func noURL(line: Int) -> FetchResult {
    FetchResult(
      url: "", key: "",
      outcome: .failure(
        CacheError(.invalidInput, "line \(line) holds no URL (blank or a comment)")),
      bytes: 0)
  }
}
