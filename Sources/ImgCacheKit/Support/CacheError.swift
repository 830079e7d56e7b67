import FoundationEssentials
import Glibc

/// A failure of the engine, classified so that a caller can act on it.
///
/// The URL and the underlying error are fields; ``message`` composes the one line a user sees.
public struct CacheError: Error, Equatable, CustomStringConvertible {
  /// The class of a failure; each maps to one documented exit status of the command line.
  public enum Kind: String, Sendable, Equatable, CaseIterable, Codable {
    /// The caller passed a bad value: a malformed URL, an unsupported scheme, a bad policy value.
    case invalidInput = "invalid_input"
    /// A local file or the index could not be read or written.
    case localIO = "local_io"
    /// DNS, connect, timeout, reset: the network failed, the server may be fine.
    case network
    /// TLS handshake or certificate verification failed.
    case tls
    /// The server refused the credentials.
    case auth
    /// Too many redirects, a body over the size limit, a malformed response, a forbidden scheme.
    case protocolError = "protocol"
    /// The server answered with a status outside 200–299.
    case httpStatus = "http_status"
    /// The body is not an image, or has zero pixels.
    case notAnImage = "not_an_image"
    /// The same request failed permanently a short time ago and is not sent again yet.
    case blacklisted
    /// Another process holds the lock this operation needs.
    case busy
    /// The operation was cancelled.
    case cancelled
    /// An original is over a derivation limit (`max_pixels`, `max_frames`), read from its
    /// headers before anything is decoded.
    case tooLarge = "too_large"
    /// A variant cannot be derived: the original's format is not derived from (SVG, PDF, JPEG
    /// XL, BMP, ICO), it is damaged or truncated, or this libvips cannot write the format.
    case cannotDerive = "cannot_derive"
    /// The host asked (`Retry-After` on a 429 or 503) to wait longer than `retry_after_max`:
    /// not asked again before then. Transient: never a failed-URL record.
    case rateLimited = "rate_limited"
    /// With `--robots`: the host's robots.txt disallows the URL, or the response's
    /// `X-Robots-Tag` opts out (its body not read). Never a failed-URL record.
    case disallowed
    /// The body's digest differs from the one its table's row gives (`--verify-hash`): the
    /// body is refused for that row. Never a failed-URL record (another table may name
    /// another body).
    case digestMismatch = "digest_mismatch"
  }

  /// The class of the failure.
  public var kind: Kind
  /// What went wrong, without the URL: `HTTP 404`, `body is not an image (12 bytes)`.
  public var detail: String
  /// The URL the failure concerns, when it concerns one.
  public var url: String?
  /// The HTTP status, for `.httpStatus` and `.auth` failures.
  public var httpStatus: Int?
  /// The error this one wraps (a POSIX, SQLite or Foundation error), when there is one.
  public var underlying: (any Error)?

  /// Creates an error of `kind`: `detail` says what went wrong, `url` what it concerns.
  public init(
    _ kind: Kind, _ detail: String, url: String? = nil, httpStatus: Int? = nil,
    underlying: (any Error)? = nil
  ) {
    self.kind = kind
    self.detail = detail
    self.url = url
    self.httpStatus = httpStatus
    self.underlying = underlying
  }

  /// One line a user can act on: `<url>: <detail>`, or the detail alone.
  public var message: String { url.map { "\($0): \(detail)" } ?? detail }
  public var description: String { message }

  public static func == (lhs: CacheError, rhs: CacheError) -> Bool {
    lhs.kind == rhs.kind && lhs.detail == rhs.detail && lhs.url == rhs.url
      && lhs.httpStatus == rhs.httpStatus
  }

  /// Whether the failure is a full disk (`ENOSPC`, `EDQUOT`), however deeply wrapped: a file
  /// written in the cache, or the index (whose errors name it so, docs/design.md, A full disk).
  public var isNoSpace: Bool { Self.isNoSpace(self) }

  /// Whether `error` is a full disk (``isNoSpace``).
  package static func isNoSpace(_ error: any Error) -> Bool {
    var current: (any Error)? = error
    while let error = current {
      if let cacheError = error as? CacheError {
        current = cacheError.underlying
        continue
      }
      if error is FullDisk { return true }
      if let posix = error as? POSIXError { return posix.code == .ENOSPC || posix.code == .EDQUOT }
      guard let cocoa = error as? CocoaError else { return false }
      if cocoa.code == .fileWriteOutOfSpace { return true }
      current = cocoa.underlying
    }
    return false
  }

  /// This error about `url` (when it names none yet).
  package func about(_ url: String) -> CacheError {
    var copy = self
    if copy.url == nil { copy.url = url }
    return copy
  }

  /// Wraps any error thrown by a file-system or database call as a local I/O failure; a
  /// ``CacheError`` passes through (gaining `url` when it names none).
  package static func io(_ what: String, _ error: any Error, url: String? = nil) -> CacheError {
    if let cacheError = error as? CacheError {
      return url.map { cacheError.about($0) } ?? cacheError
    }
    return CacheError(.localIO, "\(what): \(describe(error))", url: url, underlying: error)
  }

  /// Wraps a failed POSIX call, reading `errno`.
  package static func posix(_ what: String, path: String, code: Int32 = errno) -> CacheError {
    CacheError(
      .localIO, "\(what) \(path): \(String(cString: strerror(code)))",
      underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
  }

  /// A short description of an underlying error in imgcache's words: the system's reason for
  /// a POSIX or Foundation file error, never a type dump or a `UserInfo={…}` listing.
  package static func describe(_ error: any Error) -> String {
    if let cacheError = error as? CacheError { return cacheError.message }
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    if let cocoa = error as? CocoaError {
      if let posix = cocoa.underlying as? POSIXError {
        return String(cString: strerror(posix.code.rawValue))
      }
      return reason(cocoa.code)
    }
    let text = "\(error)".split(separator: "\n").first.map(String.init) ?? "unknown error"
    return text.contains("userInfo:") || text.contains("UserInfo=") ? "\(type(of: error))" : text
  }

  /// A file error without a system reason, in words (Foundation's failure reasons for them).
  private static func reason(_ code: CocoaError.Code) -> String {
    switch code {
    case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
    case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
    case .fileReadInapplicableStringEncoding, .fileReadCorruptFile: return "not valid text"
    case .fileWriteOutOfSpace: return "no space left on device"
    case .fileWriteFileExists: return "the file exists"
    default: return "file operation failed (code \(code.rawValue))"
    }
  }
}

/// A full disk met by a library that says so in its own words (SQLite's "database or disk is
/// full"): `cause` is its error.
package struct FullDisk: Error {
  package var cause: any Error

  package init(cause: any Error) { self.cause = cause }
}
