import FoundationEssentials

/// stale-if-error (RFC 5861, RFC 9111 §4.2.4): a stored copy standing in for a failed
/// revalidation or refresh.
extension Fetcher {
  /// The stored copy (`validators`, the entry a conditional request was made with) served in
  /// place of `error`, when the policy or the response's own `stale-if-error` allows it, and
  /// its stored body is still there.
  func staleCopy(_ validators: CacheEntry?, after error: CacheError, options: FetchOptions)
    -> FetchOutcome?
  {
    guard let entry = validators else { return nil }
    let verdict = options.freshness.verdict(on: entry, at: cache.now())
    guard options.freshness.allowsStale(verdict, after: error) else { return nil }
    let path = cache.layout.dataPath(entry.file)
    guard FileIO.sizes(of: path) != nil else { return nil }
    cache.note([.servedStale: 1])
    return .stale(entry, path: path, error: error)
  }
}
