import Foundation

/// Checks on request URLs, before anything touches the network.
enum RequestURL {
  /// Throws `.invalidInput` unless `url` is an absolute http or https URL with a host.
  static func validate(_ url: String) throws {
    guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased()
    else {
      throw CacheError(.invalidInput, "not a valid URL", url: url)
    }
    guard scheme == "http" || scheme == "https" else {
      throw CacheError(
        .invalidInput, "unsupported scheme \(scheme) (only http and https)", url: url)
    }
    guard let host = components.host, !host.isEmpty else {
      throw CacheError(.invalidInput, "the URL has no host", url: url)
    }
  }

  /// The error for a request still on the failed list.
  static func refused(_ failure: FailedURL, ttl: TimeInterval) -> CacheError {
    let until = failure.lastFailure.addingTimeInterval(ttl)
    let formatter = ISO8601DateFormatter()
    return CacheError(
      .blacklisted,
      "failed recently (\(failure.reason)); the same request is not sent again before "
        + "\(formatter.string(from: until)) unless retrying failed URLs is asked for",
      url: failure.url, httpStatus: failure.httpStatus)
  }
}
