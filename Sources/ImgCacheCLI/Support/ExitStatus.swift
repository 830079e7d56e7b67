import ImgCacheKit

/// The exit statuses of docs/design.md, Command line.
enum ExitStatus {
  static let ok: Int32 = 0
  static let negative: Int32 = 1
  static let usage: Int32 = 2
  static let interrupted: Int32 = 130
  static let terminated: Int32 = 143

  /// Prints `error` as one line on stderr and returns its status: the one mapping from an
  /// error to what the user sees.
  static func report(_ error: CacheError, to console: Console) -> Int32 {
    if error.kind != .cancelled { console.error(error.message) }
    return code(for: error.kind)
  }

  /// The status of a failure class.
  static func code(for kind: CacheError.Kind) -> Int32 {
    switch kind {
    case .invalidInput: return 2
    case .localIO: return 3
    case .network: return 4
    case .tls: return 5
    case .auth: return 6
    case .protocolError: return 7
    case .httpStatus, .rateLimited: return 8
    case .notAnImage, .digestMismatch: return 9
    case .busy: return 10
    case .blacklisted: return 11
    case .tooLarge: return 12
    case .cannotDerive: return 13
    case .disallowed: return 14
    case .cancelled: return 130
    }
  }

  /// The more severe of two statuses for a batch: an interrupt beats everything, then among
  /// errors (2–14) the lowest wins as in wget, then a negative answer (1), then success.
  static func worst(_ a: Int32, _ b: Int32) -> Int32 {
    func rank(_ code: Int32) -> Int32 {
      switch code {
      case 0: return 0
      case 1: return 1
      case interrupted, terminated: return 1_000
      default: return 500 - code
      }
    }
    return rank(a) >= rank(b) ? a : b
  }

  /// The text for `--help` and the man page.
  static let table = """
    EXIT STATUS:
      0    success (query: every URL cached)
      1    negative answer: query miss, offline miss, remove of an absent entry
      2    usage or config error (bad option, size, duration, URL, config line)
      3    local I/O error (disk full, permissions, corrupt index)
      4    network failure (DNS, connect, timeout, reset)
      5    TLS failure (certificate verification, handshake)
      6    authentication refused (HTTP 401/407)
      7    protocol error (too many redirects, body too large, bad response)
      8    HTTP error status (404, 500, ...); rate_limited: a Retry-After past retry_after_max
      9    not an image (or an image with 0 pixels, or not the body --verify-hash names)
      10   busy: another clean or clear holds the lock
      11   blacklisted: the same request failed permanently a short time ago
      12   too large to derive a variant from (max_pixels, max_frames)
      13   cannot derive a variant (SVG, PDF, JPEG XL, a damaged original)
      14   disallowed (--robots): robots.txt disallows the URL, or X-Robots-Tag opts out
      130  interrupted (SIGINT)
      143  terminated (SIGTERM)
    Batches exit with the most severe status: 130/143, then the lowest of 2-14, then 1.
    """
}
