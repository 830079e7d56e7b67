import Foundation

/// A request URL taken apart before anything touches the network: the credentials of its userinfo
/// are a credential, not part of the image's identity (docs/design.md, Cache semantics), so they
/// are split off — passed to libcurl as a login, never stored or printed.
struct RequestURL: Sendable, Equatable {
  /// The URL without userinfo: what keys, the index and the failed list see.
  var stripped: String
  /// The URL as printed: the userinfo, when there was one, shown as `***`.
  var display: String
  /// `user:password` from the userinfo, percent-decoded.
  var credentials: String?

  /// Takes `url` apart; throws `.invalidInput` unless it is an absolute http or https URL with
  /// a host and no control characters. Hosts may be international (libcurl converts them).
  init(_ url: String) throws {
    guard !url.containsControlCharacters else {
      throw CacheError(.invalidInput, "the URL holds a control character", url: Self.redacted(url))
    }
    guard let schemeEnd = URLText.schemeSeparator(in: url) else {
      throw CacheError(.invalidInput, "not a valid URL", url: Self.redacted(url))
    }
    // On the UTF-8 bytes, once: this runs for every URL of every batch.
    let bytes = url.utf8
    guard Self.isHTTP(bytes[..<schemeEnd.lowerBound]) else {
      let scheme = url[..<schemeEnd.lowerBound].lowercased()
      throw CacheError(
        .invalidInput, "unsupported scheme \(scheme) (only http and https)", url: Self.redacted(url)
      )
    }
    let rest = bytes[schemeEnd.upperBound...]
    let authority = rest[..<(rest.firstIndex(where: URLText.endsAuthority) ?? rest.endIndex)]
    let at = authority.lastIndex(of: UInt8(ascii: "@"))
    let hostPort = at.map { authority[authority.index(after: $0)...] } ?? authority
    // A host: something besides port colons ("[v6]" counts), and no space.
    guard hostPort.contains(where: { $0 != UInt8(ascii: ":") }),
      !hostPort.contains(UInt8(ascii: " "))
    else {
      throw CacheError(.invalidInput, "the URL has no host", url: Self.redacted(url))
    }
    // Most URLs have no userinfo: nothing to take apart.
    guard at != nil else {
      (stripped, display, credentials) = (url, url, nil)
      return
    }
    stripped = CacheKey.withoutUserinfo(url)
    display = CacheKey.redacted(url)
    credentials = CacheKey.userinfo(of: url).map { $0.2.removingPercentEncoding ?? String($0.2) }
  }

  /// Whether `scheme` is http or https, in any case.
  private static func isHTTP(_ scheme: Substring.UTF8View) -> Bool {
    guard scheme.count == 4 || scheme.count == 5 else { return false }
    for (byte, expected) in zip(scheme, "https".utf8) where byte | 0x20 != expected {
      return false
    }
    return true
  }

  /// `url` with its userinfo shown as `***`.
  static func redacted(_ url: String) -> String { CacheKey.redacted(url) }

  /// The error for a request still on the failed list.
  static func refused(_ failure: FailedURL, display: String, ttl: TimeInterval) -> CacheError {
    let until = failure.lastFailure.addingTimeInterval(ttl)
    let formatter = ISO8601DateFormatter()
    return CacheError(
      .blacklisted,
      "failed recently (\(failure.reason)); the same request is not sent again before "
        + "\(formatter.string(from: until)) unless retrying failed URLs is asked for",
      url: display, httpStatus: failure.httpStatus)
  }
}
