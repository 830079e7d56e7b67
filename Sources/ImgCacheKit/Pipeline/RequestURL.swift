import Foundation

/// Checks on request URLs, before anything touches the network.
enum RequestURL {
  /// Throws `.invalidInput` unless `url` is an absolute http or https URL with a host.
  static func validate(_ url: String) throws {
    guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased()
    else {
      throw CacheError(.invalidInput, "\(url): not a valid URL")
    }
    guard scheme == "http" || scheme == "https" else {
      throw CacheError(.invalidInput, "\(url): unsupported scheme \(scheme) (only http and https)")
    }
    guard let host = components.host, !host.isEmpty else {
      throw CacheError(.invalidInput, "\(url): the URL has no host")
    }
  }

  /// The error for a URL still on the failed list.
  static func blacklisted(_ failure: FailedURL, ttl: TimeInterval) -> CacheError {
    let until = failure.lastFailure.addingTimeInterval(ttl)
    let prefix = failure.url + ": "
    let reason =
      failure.reason.hasPrefix(prefix)
      ? String(failure.reason.dropFirst(prefix.count)) : failure.reason
    let formatter = ISO8601DateFormatter()
    return CacheError(
      .blacklisted,
      "\(failure.url): failed recently (\(reason)); not retried before "
        + "\(formatter.string(from: until)) unless retrying failed URLs is asked for",
      httpStatus: failure.httpStatus)
  }
}
