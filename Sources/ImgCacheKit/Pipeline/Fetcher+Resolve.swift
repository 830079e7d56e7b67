import Foundation

extension Fetcher {
  /// Looks `urls` up without the network, in one index read per tier and one failure query
  /// for all: each gets an answer (hit, refusal, offline miss, error) or a download to make.
  /// The lookup order of docs/design.md (Cache semantics), written once.
  func resolve(_ urls: [String], options: FetchOptions) async -> [Resolution] {
    var answers = [Resolution?](repeating: nil, count: urls.count)
    var requests = [RequestURL?](repeating: nil, count: urls.count)
    var keys = [String](repeating: "", count: urls.count)
    func answer(_ index: Int, _ outcome: Result<FetchOutcome, CacheError>) {
      let shown = requests[index]?.display ?? RequestURL.redacted(urls[index])
      answers[index] = .answered(
        FetchResult(url: shown, key: keys[index], outcome: outcome, bytes: 0))
    }
    for (index, url) in urls.enumerated() {
      do {
        let request = try RequestURL(url)
        requests[index] = request
        keys[index] = options.key(for: request.stripped)
      } catch {
        answer(index, .failure(CacheError.io("bad URL", error)))
      }
    }
    let open = { urls.indices.filter { answers[$0] == nil } }
    do {
      if !options.retryFailed {
        let asked = open().compactMap { index in
          requests[index].map { request in
            (url: request.stripped, fingerprint: { self.fingerprint(options, request) })
          }
        }
        let refused = try cache.failures(of: asked, ttl: options.failedTTL)
        for index in open() {
          guard let request = requests[index], let failure = refused[request.stripped] else {
            continue
          }
          answer(
            index,
            .failure(
              RequestURL.refused(failure, display: request.display, ttl: options.failedTTL)))
          cache.note([.blacklisted: 1])
        }
      }
      var validators = [String: CacheEntry]()
      if options.mode == .normal || options.mode == .offline {
        let asked = open()
        let hits = try await lookup(keys: asked.map { keys[$0] }, touch: options.touch)
        for index in asked {
          guard let hit = hits[keys[index]] else { continue }
          // `freshness = http`: a stale entry is revalidated with its validators first.
          if options.mode == .normal, case .local(let entry, _) = hit, isStale(entry, options) {
            validators[entry.key] = entry
            continue
          }
          answer(index, .success(.hit(hit)))
          if options.retryFailed, let request = requests[index] {
            try cache.forgetFailure(url: request.stripped)
          }
        }
      }
      // The remote tier, for what no local tier had (not for a stale entry: the origin decides).
      let remoteAsked = open().filter { requests[$0] != nil && validators[keys[$0]] == nil }
      if remote != nil && !remoteAsked.isEmpty {
        var urlsByKey = [String: String]()
        for index in remoteAsked { urlsByKey[keys[index]] = requests[index]?.stripped }
        let found = await remoteHits(
          keys: Array(urlsByKey.keys), urls: urlsByKey, options: options)
        for index in remoteAsked {
          guard let hit = found[keys[index]] else { continue }
          // A copy is judged as the original would be: stale, it is revalidated first.
          if case .remote(let entry, _, _) = hit, isStale(entry, options) {
            validators[entry.key] = entry
          } else {
            answer(index, .success(.hit(hit)))
          }
        }
      }
      if options.mode == .refresh {
        for entry in try cache.index.entries(forKeys: open().map { keys[$0] }) {
          validators[entry.key] = entry
        }
      }
      for index in open() {
        guard let request = requests[index] else { continue }
        if options.mode == .offline {
          answer(index, .success(.offlineMiss))
          continue
        }
        answers[index] = .download(
          Download(
            request: request, key: keys[index], validators: validators[keys[index]],
            sequence: nextSequence()))
      }
    } catch {
      let failure = CacheError.io("cannot read the cache", error)
      for index in open() {
        answer(index, .failure(failure.about(requests[index]?.display ?? urls[index])))
      }
    }
    return answers.enumerated().map { index, resolution in
      resolution
        ?? .answered(
          FetchResult(
            url: RequestURL.redacted(urls[index]), key: keys[index],
            outcome: .failure(CacheError(.localIO, "not looked up")), bytes: 0))
    }
  }

  /// Whether `entry` must be revalidated before use under `options`' freshness policy.
  func isStale(_ entry: CacheEntry, _ options: FetchOptions) -> Bool {
    options.freshness.mode == .http
      && !options.freshness.verdict(on: entry, at: cache.now()).isFresh
  }

  /// Walks the tiers in order for `keys`: each key's first hit. A failing local cache is an
  /// error; a failing secondary tier is a miss, never a failed fetch. A lookup that `touch`es
  /// is a use, and counted (lookups, hits, misses); one that does not is an inspection.
  public func lookup(keys: [String], touch: Bool) async throws -> [String: CacheHit] {
    // Noted first, so that the transaction recording the hits' use adds them: a hit then
    // costs one write, not two.
    if touch { cache.note([.lookups: Int64(keys.count)]) }
    let found = try await lookupInTiers(keys: keys, touch: touch)
    if touch { cache.note(Self.lookupCounts(asked: keys.count, hits: found.values)) }
    return found
  }

  private func lookupInTiers(keys: [String], touch: Bool) async throws -> [String: CacheHit] {
    var found = [String: CacheHit]()
    var open = keys
    for (position, tier) in tiers.enumerated() where !open.isEmpty {
      do {
        found.merge(try await tier.lookup(keys: open, touch: touch)) { first, _ in first }
      } catch  where position > 0 {
        continue
      }
      open = open.filter { found[$0] == nil }
    }
    return found
  }

  /// The counts of one batch of lookups besides the lookups themselves and the local hits
  /// (with their bytes), which the transaction recording the hits' use counted.
  static func lookupCounts(asked: Int, hits: some Collection<CacheHit>) -> [Counter: Int64] {
    var counts: [Counter: Int64] = [.misses: Int64(asked - hits.count)]
    for case .readOnly(let path) in hits {
      counts[.bytesServed, default: 0] += FileIO.sizes(of: path)?.size ?? 0
      counts[.hitsReadOnly, default: 0] += 1
    }
    return counts
  }

  /// The fingerprint of `request` made with `options` through this pipeline.
  func fingerprint(_ options: FetchOptions, _ request: RequestURL? = nil) -> String {
    RequestFingerprint.of(
      transfer, acceptAnyBody: options.acceptAnyBody,
      urlCredentials: request?.credentials)
  }
}
