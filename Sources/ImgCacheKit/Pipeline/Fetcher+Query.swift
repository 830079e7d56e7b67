import FoundationEssentials

/// What `query` says of one URL: its key, where it is cached (if it is), and the latest
/// failure recorded for it within the failed-request TTL.
public struct QueryAnswer: Sendable {
  /// The URL as given, its userinfo as `***`.
  public var url: String
  /// Its cache key.
  public var key: String
  /// The cached copy, if any.
  public var hit: CacheHit?
  /// The latest failure of any request of the URL within the TTL, if any.
  public var failure: FailedURL?
}

extension Fetcher {
  /// Looks `urls` (or their `variant`) up in every tier in one batch (a use of each hit only
  /// when `touch`), with their failure records: `query`'s engine. Throws when the local index cannot be read.
  public func query(
    _ urls: [String], keyFilter: KeyFilter, failedTTL: TimeInterval, touch: Bool,
    variant: VariantSpec? = nil
  ) async throws -> [QueryAnswer] {
    try await withTaskExecutorPreference(EngineExecutor.shared) {
      try await queryHere(
        urls, keyFilter: keyFilter, failedTTL: failedTTL, touch: touch, variant: variant)
    }
  }

  /// ``query(_:keyFilter:failedTTL:touch:variant:)``'s work, on the engine's executor.
  private func queryHere(
    _ urls: [String], keyFilter: KeyFilter, failedTTL: TimeInterval, touch: Bool,
    variant: VariantSpec?
  ) async throws -> [QueryAnswer] {
    // With a variant, the variant's own key: `query` answers for what `fetch` would serve.
    var fetches = urls.map { url in
      let key = CacheKey.key(for: url, filter: keyFilter)
      return Fetch(looking: variant?.derivedKey(for: key) ?? key, for: url)
    }
    var options = FetchOptions()
    (options.mode, options.touch) = (.offline, touch)
    // The local tiers only, as `--offline`: no refusal, no remote tier.
    var rules = lookupRules(options)
    rules.refusesFailed = false
    var machine = LookupMachine(fetches, rules: rules)
    fetches = await perform(&machine, options: options)
    if let error = machine.error { throw error }
    let read = machine.read
    let plain = urls.map { CacheKey.withoutUserinfo($0) }
    let records =
      read?.failuresRecorded == false
      ? [:]
      : try cache.index.failures(urls: plain, after: cache.now().addingTimeInterval(-failedTTL))
    return zip(fetches, plain).map { fetch, url in
      var hit: CacheHit?
      if case .done(.success(.hit(let found))) = fetch.state { hit = found }
      return QueryAnswer(
        url: CacheKey.redacted(fetch.given), key: fetch.key, hit: hit,
        failure: records[url]?.max { $0.lastFailure < $1.lastFailure })
    }
  }
}
