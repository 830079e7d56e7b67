import FoundationEssentials

/// The version of imgcache, sent in the user agent.
public enum ImgCacheVersion {
  /// The current version.
  public static let current = "0.1.0"
}

/// How the downloader talks to servers (SDWebImageDownloader's configuration, docs/design.md, Cache
/// semantics).
public struct TransferOptions: Sendable, Equatable {
  /// The order queued transfers start in.
  public enum Order: String, Sendable, CaseIterable {
    /// First queued, first started (the default).
    case fifo
    /// Last queued, first started.
    case lifo
  }

  /// The most transfers allowed at once (curl's `--parallel-max` stops at 300): a web-scale
  /// prefetch keeps thousands of slow hosts busy. The open-files limit is raised to fit
  /// (``Downloader/raiseOpenFilesLimit(for:)``).
  public static let maxTransfers = 5_000

  /// Transfers running at once. The default is 6.
  public var maxConcurrent = 6
  /// Transfers running at once to one host; 0 (the default) means no limit of its own.
  public var maxPerHost = 0
  /// The order queued transfers start in. The default is FIFO.
  public var order = Order.fifo
  /// Seconds allowed to connect. The default is 15.
  public var connectTimeout: TimeInterval = 15
  /// Seconds without a byte received before a transfer fails. The default is 15.
  public var idleTimeout: TimeInterval = 15
  /// Seconds a whole transfer may take; 0 (the default) means no limit.
  public var maxTime: TimeInterval = 0
  /// Redirects followed before failing. The default is 10.
  public var maxRedirects = 10
  /// Largest body accepted, in bytes, enforced while receiving. The default is 100 MiB.
  public var maxBodySize: Int64 = 100 * 1_048_576
  /// Extra request headers, each `Name: value`.
  public var headers: [String] = []
  /// The `User-Agent`. The default is `imgcache/<version>`.
  public var userAgent = "imgcache/\(ImgCacheVersion.current)"
  /// `user:password` for HTTP basic authentication.
  public var credentials: String?
  /// Whether to read credentials from `~/.netrc` (or ``netrcFile``). The default is false.
  public var useNetrc = false
  /// A netrc file other than `~/.netrc`.
  public var netrcFile: String?
  /// A file cookies are read from and written back to.
  public var cookieJar: String?
  /// Skips TLS certificate verification. The default is false.
  public var insecure = false
  /// A CA bundle to verify servers with instead of the system's.
  public var caFile: String?
  /// Retries of a transient failure (network, 5xx, 429). The default is 2.
  public var retries = 2
  /// The first retry's delay in seconds; each further retry doubles it. The default is 1.
  /// Also a host's first pause after a 429 or 503 without `Retry-After`.
  public var retryDelay: TimeInterval = 1
  /// Requests started a second to one host (a smooth token bucket); 0 (the default): no rate.
  public var ratePerHost: Double = 0
  /// Requests started a second over all hosts (curl's `--rate`); 0 (the default): no rate.
  public var rate: Double = 0
  /// The longest wait a `Retry-After` is honoured for, in seconds; a longer one fails the
  /// host's URLs as `rate_limited` until then. The default is 60.
  public var retryAfterMax: TimeInterval = 60
  /// Pauses of one host in a row, with no answer between (429 or 503, whatever their
  /// `Retry-After`), before its remaining transfers of the run fail at once as `rate_limited`:
  /// a host that only throttles ends a list in seconds, not hours. 0: never. The default is 5.
  public var throttleLimit = 5
  /// Names pinned to addresses, `HOST:PORT:ADDRESS[,ADDRESS…]` each (curl's `--resolve`;
  /// checked by ``checkResolve(_:)``).
  public var resolve: [String] = []
  /// The file through which the processes of one cache share hosts' pauses and rates
  /// (``SharedHosts``; a fetcher sets its cache's); nil: this process keeps them alone.
  public var hostsFile: String?
  /// Politeness shared by every machine of a fleet (`job work`); nil: this machine's only.
  public var fleet: FleetLink?

  /// The defaults.
  public init() {}

  /// Checks an extra header `Name: value`: a token name and a value without control
  /// characters (a CR or LF would smuggle in header lines).
  public static func checkHeader(_ header: String) throws {
    guard let colon = header.firstIndex(of: ":") else {
      throw CacheError(.invalidInput, "invalid header '\(header)' (expected 'Name: value')")
    }
    let name = header[..<colon]
    guard !name.isEmpty, name.utf8.allSatisfy(HTTPFields.isTokenByte) else {
      throw CacheError(.invalidInput, "invalid header name in '\(header)'")
    }
    guard HTTPFields.isSafeValue(header[header.index(after: colon)...]) else {
      throw CacheError(
        .invalidInput, "invalid header '\(name)': its value holds a control character")
    }
  }
}

/// One download: where from, where the body goes, and validators for a conditional GET.
public struct DownloadRequest: Sendable {
  /// The http or https URL.
  public var url: String
  /// The directory the body is streamed into (the cache's `tmp/`).
  public var temporaryDirectory: String
  /// `If-None-Match`, for a refresh.
  public var etag: String?
  /// `If-Modified-Since`, for a refresh.
  public var lastModified: String?

  /// Where the request stands in the start order (FIFO: lowest first); nil means its arrival.
  public var sequence: UInt64?
  /// `user:password` from the URL's userinfo (the URL itself carries none); the transfer's
  /// own credentials (`-u`) win over it.
  public var credentials: String?
  /// Where a body worth keeping goes, so that an interrupted transfer can be resumed.
  public var resumable: Resumable?
  /// Whether a 2xx response whose `X-Robots-Tag` opts out of `imgcache` (``RobotsTag``) is
  /// aborted once its headers are in, before a byte of its body is taken: a `.disallowed`
  /// failure.
  public var honoursRobotsTag = false
  /// When set, the body is cut after this many bytes and delivered as it is (a robots.txt, of
  /// which only the start is read), instead of failing past ``TransferOptions/maxBodySize``.
  public var truncatesAt: Int64?

  /// Creates a request.
  public init(
    url: String, temporaryDirectory: String, etag: String? = nil, lastModified: String? = nil,
    credentials: String? = nil, sequence: UInt64? = nil
  ) {
    self.url = url
    self.credentials = credentials
    self.temporaryDirectory = temporaryDirectory
    self.etag = etag
    self.lastModified = lastModified
    self.sequence = sequence
  }
}

/// A body that survives interruption: it streams into `path` (kept when the transfer fails),
/// and, when `offset` bytes are already there, only the rest is asked for with `Range` and
/// `If-Range: validator`; a 206 from `offset` appends, a 200 starts over.
public struct Resumable: Sendable {
  /// The partial body's file.
  public var path: String
  /// Bytes already in `path` from an earlier run; 0 to start.
  public var offset: Int64
  /// The strong validator those bytes came with (required when `offset` > 0).
  public var validator: String?
  /// The whole body's length as first announced (with `offset` > 0): a 206 must announce
  /// exactly this, from `offset` to its end.
  public var length: Int64?
  /// Bodies announced shorter than this (or of no announced length) are not kept, nor is a
  /// partial body that stopped before this many bytes.
  public var minimumSize: Int64
  /// Called once, on the loop thread with no lock held, when a body worth keeping starts
  /// streaming into `path` from its first byte: its strong validator and announced length.
  /// It must only hand the news over (the loop runs libcurl and nothing else).
  public var started: @Sendable (_ validator: String, _ length: Int64) -> Void

  /// Creates one.
  public init(
    path: String, offset: Int64, validator: String?, length: Int64? = nil, minimumSize: Int64,
    started: @escaping @Sendable (String, Int64) -> Void
  ) {
    self.path = path
    self.offset = offset
    self.validator = validator
    self.length = length
    self.minimumSize = minimumSize
    self.started = started
  }
}

/// A finished response: a complete body in a temporary file, or a 304.
public struct DownloadResponse: Sendable {
  /// The final HTTP status (2xx, or 304 for a conditional request).
  public var status: Int
  /// The temporary file holding the whole body; nil for a 304, and for a body small enough
  /// to be handed over in ``body`` alone (under 256 KiB, not kept for a resume). The caller
  /// owns it.
  public var file: String?
  /// Bytes received (after content decoding).
  public var bytes: Int64
  /// `Content-Type` of the final response.
  public var contentType: String?
  /// `ETag` of the final response.
  public var etag: String?
  /// `Last-Modified` of the final response.
  public var lastModified: String?
  /// The URL after redirects.
  public var effectiveURL: String
  /// The lowercase hex SHA-256 of the body, computed while it streamed in; nil for a 304.
  public var sha256: String?
  /// What the final response said about reusing it (`Cache-Control`, `Expires`, `Date`, `Age`).
  public var freshness = ResponseFreshness()
  /// The whole body, when it was small enough to be kept in memory as it streamed (under
  /// 256 KiB): checked without reading a file. Without a ``file``, the only copy.
  public var body: Data?
}

extension CacheError {
  /// Whether the failure is permanent, so the request is recorded as failed (docs/design.md,
  /// Cache semantics): not an image, 404 and 410, TLS, a protocol error (too many redirects, a
  /// scheme refused on a redirect, a malformed response, too large), auth refused. A malformed
  /// URL is refused before any request and never recorded.
  public var isPermanent: Bool {
    switch kind {
    case .notAnImage, .tls, .auth, .protocolError: return true
    case .httpStatus: return httpStatus == 404 || httpStatus == 410
    case .invalidInput, .localIO, .network, .blacklisted, .busy, .cancelled, .tooLarge,
      .cannotDerive, .rateLimited, .disallowed, .digestMismatch:
      return false
    }
  }

  /// Whether a retry may succeed: network failures, 5xx, 408 and 429.
  public var isTransient: Bool {
    switch kind {
    case .network: return true
    case .httpStatus: return httpStatus.map { $0 >= 500 || $0 == 429 || $0 == 408 } ?? false
    default: return false
    }
  }
}

extension TransferOptions {
  /// These options with `maxConcurrent` fitting the process's open-files limit — its soft
  /// limit raised first, as far as the hard one allows (``Downloader/raiseOpenFilesLimit(for:)``)
  /// — and, when it had to be lowered, a line saying so (the caller shows it once). Each
  /// transfer needs three descriptors (its socket, its body's file, a short-lived one), beside
  /// those kept for the rest of the process; past the limit every transfer would fail ("Too
  /// many open files"), not just the extra ones.
  public func fittingOpenFiles() -> (options: TransferOptions, notice: String?) {
    let open = Downloader.raiseOpenFilesLimit(for: maxConcurrent)
    let reserved = min(Downloader.reservedFiles, open / 4)
    let room = max(1, (open - reserved) / 3)
    guard maxConcurrent > room else { return (self, nil) }
    var fitted = self
    fitted.maxConcurrent = room
    fitted.maxPerHost = min(fitted.maxPerHost, room)
    return (
      fitted,
      "-j \(maxConcurrent) lowered to \(room): the open-files limit is \(open) (ulimit -n)"
    )
  }
}
