import Foundation

extension DiskCache {
  /// The default time a failed request stays refused: one day.
  public static let defaultFailedTTL: TimeInterval = 86_400

  /// Records a permanent failure of the request (`url`, `fingerprint`).
  public func recordFailure(url: String, fingerprint: String = "", error: CacheError) throws {
    try index.recordFailure(url: url, fingerprint: fingerprint, error: error, at: now())
  }

  /// The most recent failure record of `url` within `ttl`: of the request with `fingerprint`,
  /// or of any request of `url` when `fingerprint` is nil.
  public func failure(
    url: String, fingerprint: String? = nil, ttl: TimeInterval = DiskCache.defaultFailedTTL
  ) throws -> FailedURL? {
    let cutoff = now().addingTimeInterval(-ttl)
    if let fingerprint {
      return try index.failures(of: [(url, fingerprint)], after: cutoff)[url]
    }
    return try index.latestFailure(url: url, after: cutoff)
  }

  /// The failure records of those `requests` (URL and fingerprint) refused now, by URL.
  public func failures(
    of requests: [(url: String, fingerprint: String)],
    ttl: TimeInterval = DiskCache.defaultFailedTTL
  ) throws -> [String: FailedURL] {
    try index.failures(of: requests, after: now().addingTimeInterval(-ttl))
  }

  /// Forgets every failure record of `url` (after a success).
  public func forgetFailure(url: String) throws { try index.forgetFailures(url: url) }

  /// Every failure record, most recent first.
  public func failures() throws -> [FailedURL] { try index.failures() }
}
