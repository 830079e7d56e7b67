import FoundationEssentials
import Synchronization

/// The lookup stages: they run on a batch of fetches at once, one index read per tier and one
/// failure query for the batch, in the lookup order of docs/design.md (Cache semantics). Each
/// takes the fetches in the state it handles and leaves the others as they are.
extension Fetcher {
  /// Looks `urls` up without the network: each fetch comes back finished (a hit, a refusal, an
  /// offline miss, an error) or ready to download. Its results are in the order of `urls`.
  /// The stages count what they decide in one tally, noted once for the batch.
  func lookUp(_ urls: [String], options: FetchOptions) async -> [Fetch] {
    var fetches = urls.map { Fetch($0, options: options) }
    var tally = LookupTally()
    do {
      if let variant = options.variant {
        try await lookVariant(&fetches, variant, options: options, tally: &tally)
      }
      var read = try readIndex(fetches, options: options)
      if !options.retryFailed {
        let refused = try refuseFailed(
          &fetches, options: options, recorded: read?.failuresRecorded, tally: &tally)
        read = read?.dropping(refused)
      }
      try await lookLocal(&fetches, read: read, options: options, tally: &tally)
      await askRemote(&fetches, options: options)
      tally.countMisses(of: fetches)
      if options.mode == .refresh { try findValidators(&fetches) }
    } catch {
      let failure = CacheError.io("cannot read the cache", error)
      for index in fetches.indices where !fetches[index].isDone {
        fetches[index].state = .done(.failure(failure))
      }
    }
    if !tally.counts.isEmpty { cache.note(tally.counts) }
    plan(&fetches, options: options)
    if options.retryFailed { forgetRetried(fetches) }
    return fetches
  }

  /// The cache's rows of the keys still looked up, and whether any failed request is
  /// recorded, in one read of the index (one statement for a lone key): what the next two
  /// stages decide on. Nil when the mode asks no local tier.
  func readIndex(_ fetches: [Fetch], options: FetchOptions) throws -> IndexLookup? {
    guard options.mode == .normal || options.mode == .offline else { return nil }
    let keys = fetches.indices.filter { fetches[$0].isLookup }.map { fetches[$0].key }.distinct()
    return keys.isEmpty ? nil : try cache.lookUp(keys: keys)
  }

  /// Stage: a URL whose request failed for good within the failed-request TTL is refused
  /// without the network (SDWebImage's failed-URL list), one query for the batch; none when
  /// the index's read says no failure is `recorded`. Returns the keys no longer asked for.
  func refuseFailed(
    _ fetches: inout [Fetch], options: FetchOptions, recorded: Bool?, tally: inout LookupTally
  ) throws -> Set<String> {
    guard recorded != false else { return [] }
    let asked = fetches.indices.filter { fetches[$0].isLookup }
    let questions = asked.compactMap { index in
      fetches[index].request.map { request in
        (url: request.stripped, fingerprint: { self.fingerprint(options, request) })
      }
    }
    guard !questions.isEmpty else { return [] }
    let refused = try cache.failures(of: questions, ttl: options.failedTTL)
    var keys = Set<String>()
    for index in asked {
      guard let request = fetches[index].request, let failure = refused[request.stripped] else {
        continue
      }
      fetches[index].state = .done(
        .failure(RequestURL.refused(failure, display: request.display, ttl: options.failedTTL)))
      tally.counts[.blacklisted, default: 0] += 1
      keys.insert(fetches[index].key)
    }
    // A key another URL still asks for (two URLs, one key) stays.
    if !keys.isEmpty { for fetch in fetches where fetch.isLookup { keys.remove(fetch.key) } }
    return keys
  }

  /// Stage: the local tiers (the cache, then read-only directories), in one lookup per tier. A
  /// hit is done, a stale hit (`freshness = http`) goes to revalidation, the rest are missing.
  /// `--reload` and `--refresh` ask no tier. A lookup that `touch`es is a use, and counted; one
  /// that does not is an inspection. The cache's rows come from `read`, when it was made (its
  /// keys are then those asked: the refused were dropped from it).
  func lookLocal(
    _ fetches: inout [Fetch], read: IndexLookup?, options: FetchOptions, tally: inout LookupTally
  ) async throws {
    let asked = fetches.indices.filter { fetches[$0].isLookup }
    guard options.mode == .normal || options.mode == .offline else {
      for index in asked { fetches[index].state = .missing }
      return
    }
    guard !asked.isEmpty else { return }
    let keys = read?.keys ?? asked.map { fetches[$0].key }.distinct()
    // The lookups noted before the tiers are asked: the write that records the hits' uses
    // then adds them too, so `stats` never shows more hits than lookups.
    if options.touch { cache.note([.lookups: Int64(keys.count)]) }
    let hits = try await lookupInTiers(keys: keys, touch: options.touch, read: read)
    if options.touch { tally.countLookups(hits: hits.values) }
    for index in asked {
      guard let hit = hits[fetches[index].key] else {
        fetches[index].state = .missing
        continue
      }
      if options.mode == .normal, case .local(let entry, _) = hit, isStale(entry, options) {
        fetches[index].state = .stale(entry)
      } else {
        fetches[index].state = .done(.success(.hit(hit)))
      }
    }
  }

  /// Stage: the remote tier, for what no local tier had (never for a stale entry: the origin
  /// decides). A copy is judged as the original would be: stale, it is revalidated.
  func askRemote(_ fetches: inout [Fetch], options: FetchOptions) async {
    guard remote != nil else { return }
    var urlsByKey = [String: String]()
    for fetch in fetches where fetch.isMissing {
      if let request = fetch.request { urlsByKey[fetch.key] = request.stripped }
    }
    guard !urlsByKey.isEmpty else { return }
    let found = await remoteHits(keys: Array(urlsByKey.keys), urls: urlsByKey, options: options)
    guard !found.isEmpty else { return }
    for index in fetches.indices where fetches[index].isMissing {
      guard let hit = found[fetches[index].key] else { continue }
      if case .remote(let entry, _, _) = hit, isStale(entry, options) {
        fetches[index].state = .stale(entry)
      } else {
        fetches[index].state = .done(.success(.hit(hit)))
      }
    }
  }

  /// Stage (`--refresh`): the stored entries' validators, so the origin can answer 304.
  func findValidators(_ fetches: inout [Fetch]) throws {
    let keys = fetches.filter(\.isMissing).map(\.key)
    guard !keys.isEmpty else { return }
    var entries = [String: CacheEntry]()
    for entry in try cache.index.entries(forKeys: keys) { entries[entry.key] = entry }
    for index in fetches.indices where fetches[index].isMissing {
      if let entry = entries[fetches[index].key] { fetches[index].state = .stale(entry) }
    }
  }

  /// Stage: what is left is downloaded, numbered in input order (offline, it is a miss). A
  /// plain miss under `mode = normal` takes the key's lock between processes first.
  func plan(_ fetches: inout [Fetch], options: FetchOptions) {
    for index in fetches.indices {
      let validators: CacheEntry?
      switch fetches[index].state {
      case .missing: validators = nil
      case .stale(let entry): validators = entry
      default: continue
      }
      guard options.mode != .offline, let request = fetches[index].request else {
        fetches[index].state = .done(.success(.offlineMiss))
        continue
      }
      fetches[index].state = .download(
        Fetch.Plan(
          validators: validators, sequence: nextSequence(),
          fingerprint: fingerprint(options, request),
          file: CacheLayout.relativeFile(for: fetches[index].key),
          takesLock: options.mode == .normal && validators == nil,
          robots: options.robots == .obey ? .toConsult : .ignored))
    }
  }

  /// Whether `entry` must be revalidated before use under `options`' freshness policy.
  func isStale(_ entry: CacheEntry, _ options: FetchOptions) -> Bool {
    options.freshness.mode == .http
      && !options.freshness.verdict(on: entry, at: cache.now()).isFresh
  }

  /// Walks the tiers in order for `keys`: each key's first hit. A failing local cache is an
  /// error; a failing secondary tier is a miss, never a failed fetch. The cache (the first
  /// tier) answers from `read` when it was made.
  func lookupInTiers(keys: [String], touch: Bool, read: IndexLookup? = nil) async throws
    -> [String: CacheHit]
  {
    var found = [String: CacheHit]()
    var open = keys
    for (position, tier) in tiers.enumerated() where !open.isEmpty {
      do {
        let hits =
          if position == 0, let read {
            try cache.hits(in: read, touch: touch)
          } else {
            try await tier.lookup(keys: open, touch: touch)
          }
        if found.isEmpty { found = hits } else { found.merge(hits) { first, _ in first } }
      } catch  where position > 0 {
        continue
      }
      open = open.filter { found[$0] == nil }
    }
    return found
  }

  /// The fingerprint of `request` made with `options` through this pipeline.
  /// Without URL credentials it is the same for every URL, and made once.
  func fingerprint(_ options: FetchOptions, _ request: RequestURL? = nil) -> String {
    let credentials = request?.credentials
    let any = options.acceptAnyBody
    if credentials == nil, let made = plainFingerprints.withLock({ $0[any] }) { return made }
    let made = RequestFingerprint.of(transfer, acceptAnyBody: any, urlCredentials: credentials)
    if credentials == nil { plainFingerprints.withLock { $0[any] = made } }
    return made
  }

  /// Stage (`--retry-failed`): a URL served from a tier leaves the failed list (a download
  /// leaves it when its body is stored).
  func forgetRetried(_ fetches: [Fetch]) {
    for fetch in fetches {
      guard case .done(.success(.hit)) = fetch.state, let request = fetch.request else { continue }
      try? cache.forgetFailure(url: request.stripped)
    }
  }
}

extension Fetch {
  /// Whether the fetch waits for the lookup stages.
  var isLookup: Bool {
    if case .lookup = state { return true }
    return false
  }

  /// Whether no local tier had it.
  var isMissing: Bool {
    if case .missing = state { return true }
    return false
  }
}

extension RequestURL {
  /// The error for a request still on the failed list (here, not with `RequestURL`: it names
  /// the index's `FailedURL`, a layer above).
  static func refused(_ failure: FailedURL, display: String, ttl: TimeInterval) -> CacheError {
    let until = failure.lastFailure.addingTimeInterval(ttl)
    return CacheError(
      .blacklisted,
      "failed recently (\(failure.reason)); the same request is not sent again before "
        + "\(until.formatted(.iso8601)) unless retrying failed URLs is asked for",
      url: display, httpStatus: failure.httpStatus)
  }
}
