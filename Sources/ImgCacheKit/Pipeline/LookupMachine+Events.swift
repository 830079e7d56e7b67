import FoundationEssentials

/// The lookup machine's events: what each answer of a tier makes of the fetches.
extension LookupMachine {
  /// Event: the current stored variants found (a read failure fails the batch).
  mutating func variantsFound(_ result: Result<[String: CacheHit], any Error>) {
    guard case .success(let found) = result else { return failed(result) }
    let canonical = rules.variant?.canonical ?? ""
    for (derivedKey, index) in variantKeys {
      guard let hit = found[derivedKey], case .local(let entry, _) = hit else { continue }
      fetches[index].serve(hit, variant: entry, spec: canonical)
    }
    tally.countVariantHits(found.count)
    // The remote tier shares variants like originals: a fleet derives each once.
    var urls = [String: String]()
    for (derivedKey, index) in variantKeys where found[derivedKey] == nil {
      if let request = fetches[index].request { urls[derivedKey] = request.stripped }
    }
    guard rules.asksRemote, let spec = rules.variant, !urls.isEmpty else { return }
    enqueue(.askRemoteVariants(spec, urls: urls))
  }

  /// Event: the remote tier's copies of the variants, each checked to be this variant, with
  /// the SHA-256 of the original each names (`sources`). They are linked to their originals
  /// before they are served: served only while that original has not changed here.
  mutating func remoteVariantsFound(_ shared: [String: CacheHit], sources: [String: String]) {
    let canonical = rules.variant?.canonical ?? ""
    let links = shared.keys.compactMap { derivedKey -> VariantLink? in
      guard let index = variantKeys[derivedKey] else { return nil }
      return VariantLink(
        key: derivedKey, original: fetches[index].key, spec: canonical,
        sourceSHA256: sources[derivedKey])
    }
    guard !links.isEmpty else { return }
    sharedVariants = shared
    enqueue(.linkVariants(links))
  }

  /// Event: the linked remote variants read back, those out of date named.
  mutating func variantsLinked(_ result: Result<Set<String>, any Error>) {
    guard case .success(let outdated) = result else { return failed(result) }
    let canonical = rules.variant?.canonical ?? ""
    var served = 0
    for (derivedKey, hit) in sharedVariants where !outdated.contains(derivedKey) {
      guard let index = variantKeys[derivedKey], case .remote(let entry, _, _) = hit else {
        continue
      }
      fetches[index].serve(hit, variant: entry, spec: canonical)
      served += 1
    }
    sharedVariants = [:]
    tally.countVariantHits(served)
  }

  /// Event: the index's read of the keys looked up.
  mutating func indexRead(_ result: Result<IndexLookup, any Error>) {
    guard case .success(let lookup) = result else { return failed(result) }
    read = lookup
  }

  /// Event: the recent failures recorded, by URL (without userinfo). A URL whose request
  /// failed for good within the failed-request TTL is refused without the network
  /// (SDWebImage's failed-URL list); its key leaves the read unless another URL asks for it.
  mutating func failuresRead(_ result: Result<[String: FailedURL], any Error>) {
    guard case .success(let refused) = result else { return failed(result) }
    var keys = Set<String>()
    for index in looking {
      guard let request = fetches[index].request, let failure = refused[request.stripped] else {
        continue
      }
      fetches[index].state = .done(
        .failure(RequestURL.refused(failure, display: request.display, ttl: rules.failedTTL)))
      tally.counts[.blacklisted, default: 0] += 1
      keys.insert(fetches[index].key)
    }
    // A key another URL still asks for (two URLs, one key) stays.
    guard !keys.isEmpty else { return }
    looking.removeAll { !fetches[$0].isLookup }
    for index in looking { keys.remove(fetches[index].key) }
    read = read?.dropping(keys)
  }

  /// Event: the local tiers' hits (`readOnlyBytes`: the bytes of the read-only directories'
  /// hits, counted as served). A hit is done, a stale hit (`freshness = http`) goes to
  /// revalidation, the rest are missing.
  mutating func tiersRead(_ result: Result<[String: CacheHit], any Error>, readOnlyBytes: Int64) {
    guard case .success(let hits) = result else { return failed(result) }
    if rules.touch { tally.countLookups(hits: hits.values, readOnlyBytes: readOnlyBytes) }
    for index in looking {
      guard let hit = hits[fetches[index].key] else {
        fetches[index].state = .missing
        continue
      }
      if rules.mode == .normal, case .local(let entry, _) = hit, isStale(entry) {
        fetches[index].state = .stale(entry)
      } else {
        fetches[index].state = .done(.success(.hit(hit)))
      }
    }
  }

  /// Event: the remote tier's copies of what no local tier had (never for a stale entry: the
  /// origin decides). A copy is judged as the original would be: stale, it is revalidated.
  mutating func remoteRead(_ found: [String: CacheHit]) {
    for index in fetches.indices where fetches[index].isMissing {
      guard let hit = found[fetches[index].key] else { continue }
      if case .remote(let entry, _, _) = hit, isStale(entry) {
        fetches[index].state = .stale(entry)
      } else {
        fetches[index].state = .done(.success(.hit(hit)))
      }
    }
  }

  /// Event (`--refresh`): the stored entries, whose validators let the origin answer 304.
  mutating func validatorsRead(_ result: Result<[CacheEntry], any Error>) {
    guard case .success(let found) = result else { return failed(result) }
    var entries = [String: CacheEntry]()
    for entry in found { entries[entry.key] = entry }
    for index in fetches.indices where fetches[index].isMissing {
      if let entry = entries[fetches[index].key] { fetches[index].state = .stale(entry) }
    }
  }

  private mutating func failed<T>(_ result: Result<T, any Error>) {
    if case .failure(let error) = result { fail(error) }
  }
}
