import Foundation

/// A request URL taken apart before anything touches the network: the credentials of its
/// userinfo are a credential, not part of the image's identity (DESIGN.md §3), so they are
/// split off — passed to libcurl as a login, never stored or printed.
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
    let scheme = url[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else {
      throw CacheError(
        .invalidInput, "unsupported scheme \(scheme) (only http and https)", url: Self.redacted(url)
      )
    }
    let rest = url.utf8[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex(where: URLText.endsAuthority) ?? rest.endIndex
    let authority = url[schemeEnd.upperBound..<authorityEnd]
    let hostPort =
      authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] }
      ?? authority
    let host = hostPort.hasPrefix("[") ? hostPort : hostPort.split(separator: ":").first ?? ""
    guard !host.isEmpty, !hostPort.contains(" ") else {
      throw CacheError(.invalidInput, "the URL has no host", url: Self.redacted(url))
    }
    stripped = CacheKey.withoutUserinfo(url)
    display = CacheKey.redacted(url)
    credentials = CacheKey.userinfo(of: url).map { $0.2.removingPercentEncoding ?? String($0.2) }
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
