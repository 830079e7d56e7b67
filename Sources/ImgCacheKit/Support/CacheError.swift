import Foundation

/// A failure of the engine, classified so that a caller can act on it.
public struct CacheError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
  /// The class of a failure; each maps to one documented exit status of the command line.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
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
    /// The URL failed permanently a short time ago and is not requested again yet.
    case blacklisted
    /// Another process holds the lock this operation needs.
    case busy
    /// The operation was cancelled.
    case cancelled
  }

  /// The class of the failure.
  public var kind: Kind
  /// One line a user can act on, naming the culprit and the cause.
  public var message: String
  /// The HTTP status, for `.httpStatus` and `.auth` failures.
  public var httpStatus: Int?

  /// Creates an error of `kind` described by `message`.
  public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil) {
    self.kind = kind
    self.message = message
    self.httpStatus = httpStatus
  }

  public var errorDescription: String? { message }
  public var description: String { message }

  /// Wraps any error thrown by a file-system or database call as a local I/O failure.
  static func io(_ what: String, _ error: any Error) -> CacheError {
    if let cacheError = error as? CacheError { return cacheError }
    return CacheError(.localIO, "\(what): \(describe(error))")
  }

  /// Wraps a failed POSIX call, reading `errno`.
  static func posix(_ what: String, path: String, code: Int32 = errno) -> CacheError {
    CacheError(.localIO, "\(what) \(path): \(String(cString: strerror(code)))")
  }

  /// A short description of an underlying error, without Swift's type dump.
  static func describe(_ error: any Error) -> String {
    if let cacheError = error as? CacheError { return cacheError.message }
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError,
      let reason = String(validatingCString: strerror(Int32(underlying.code)))
    {
      return "\(ns.localizedDescription) (\(reason))"
    }
    return "\(error)".split(separator: "\n").first.map(String.init) ?? "unknown error"
  }
}
