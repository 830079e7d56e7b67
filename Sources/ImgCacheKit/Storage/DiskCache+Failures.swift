import FoundationEssentials

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
      return try index.failures(urls: [url], after: cutoff)[url]?.first {
        $0.fingerprint == fingerprint
      }
    }
    return try index.latestFailure(url: url, after: cutoff)
  }

  /// The failure records of those `requests` refused now, by URL. A request's fingerprint
  /// (a SHA-256) is computed only when its URL has failure records: most lookups find none
  /// and never pay for it (OpenSSL's first digest costs 5 M instructions).
  public func failures(
    of requests: [(url: String, fingerprint: () -> String)],
    ttl: TimeInterval = DiskCache.defaultFailedTTL
  ) throws -> [String: FailedURL] {
    let records = try index.failures(
      urls: requests.map(\.url), after: now().addingTimeInterval(-ttl))
    guard !records.isEmpty else { return [:] }
    var refused = [String: FailedURL]()
    for (url, fingerprint) in requests {
      guard let candidates = records[url] else { continue }
      let wanted = fingerprint()
      if let record = candidates.first(where: { $0.fingerprint == wanted }) {
        refused[url] = record
      }
    }
    return refused
  }

  /// Forgets every failure record of `url` (after a success).
  public func forgetFailure(url: String) throws { try index.forgetFailures(url: url) }

  /// Every failure record, most recent first.
  public func failures() throws -> [FailedURL] { try index.failures() }
}
