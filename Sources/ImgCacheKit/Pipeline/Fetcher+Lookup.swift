import FoundationEssentials
import Synchronization

/// The lookup stages' owner: it performs what ``LookupMachine`` asks of the tiers, one index
/// read per tier and one failure query for the batch, and feeds back what each answered.
extension Fetcher {
  /// Looks `urls` up without the network: each fetch comes back finished (a hit, a refusal, an
  /// offline miss, an error) or ready to download. Its results are in the order of `urls`.
  /// The stages count what they decide in one tally, noted once for the batch.
  func lookUp(_ urls: [ListedURL], options: FetchOptions) async -> [Fetch] {
    var machine = LookupMachine(
      urls.map { Fetch($0.url, options: options, notes: $0.notes) }, rules: lookupRules(options))
    return await perform(&machine, options: options)
  }

  /// The facts of `options` the lookup stages decide on.
  func lookupRules(_ options: FetchOptions) -> LookupMachine.Rules {
    var rules = LookupMachine.Rules()
    (rules.mode, rules.touch, rules.variant) = (options.mode, options.touch, options.variant)
    (rules.refusesFailed, rules.forgetsServed) = (!options.retryFailed, options.retryFailed)
    rules.asksRemote = remote != nil && options.useRemote && options.mode == .normal
    (rules.failedTTL, rules.freshness) = (options.failedTTL, options.freshness)
    rules.obeysRobots = options.robots == .obey
    if options.freshness.mode == .http { rules.now = cache.now() }
    return rules
  }

  /// Performs what `machine` asks until it finishes; its fetches. `pending` is an action
  /// ``lookUpAtOnce(_:options:)`` left for a wait: performed first. What needs no wait is
  /// performed by ``lookUpAtOnce(_:options:)``, which alone says what waits.
  func perform(
    _ machine: inout LookupMachine, options: FetchOptions, from pending: LookupMachine.Action? = nil
  ) async -> [Fetch] {
    var waiting = pending
    while true {
      if let action = waiting { await performWaiting(action, &machine, options: options) }
      switch lookUpAtOnce(&machine, options: options) {
      case .finished(let fetches): return fetches
      case .waiting(let action): waiting = action
      }
    }
  }

  /// Performs an action that waits on another tier (a secondary or the remote one).
  private func performWaiting(
    _ action: LookupMachine.Action, _ machine: inout LookupMachine, options: FetchOptions
  ) async {
    switch action {
    case .askRemoteVariants(let spec, let urls):
      let (shared, sources) = await remoteVariants(spec, urls: urls, options: options)
      machine.remoteVariantsFound(shared, sources: sources)
    case .readTiers(let keys, let read, let lookups):
      if let lookups { cache.note([.lookups: lookups]) }
      let hits = await hits(keys, touch: options.touch, read: read)
      machine.tiersRead(hits, readOnlyBytes: options.touch ? Self.readOnlyBytes(hits) : 0)
    case .askRemote(let urls):
      machine.remoteRead(await remoteHits(keys: Array(urls.keys), urls: urls, options: options))
    default: performAtOnce(action, &machine, options: options)
    }
  }

  /// What the lookup stages came to on the calling thread (``lookUpAtOnce(_:options:)``).
  enum LookupStep {
    /// The batch is looked up: its fetches.
    case finished([Fetch])
    /// The stages wait for this action (a secondary or remote tier): the machine, taken to
    /// ``perform(_:options:from:)`` with it, goes on from there.
    case waiting(LookupMachine.Action)
  }

  /// Performs what `machine` asks on the calling thread, without a task, while each action is
  /// an index read or a note — a hit's whole lookup (docs/architecture.md, Start-up); stops at
  /// the first that waits on another tier.
  func lookUpAtOnce(_ machine: inout LookupMachine, options: FetchOptions) -> LookupStep {
    while true {
      let action = machine.next()
      switch action {
      case .finish(let fetches): return .finished(fetches)
      case .askRemoteVariants, .askRemote: return .waiting(action)
      case .readTiers where tiers.count > 1: return .waiting(action)
      default: performAtOnce(action, &machine, options: options)
      }
    }
  }

  /// Performs an action that needs no other tier: reads and writes of the local index, notes.
  private func performAtOnce(
    _ action: LookupMachine.Action, _ machine: inout LookupMachine, options: FetchOptions
  ) {
    switch action {
    case .findVariants(let keys):
      machine.variantsFound(Result { try current(variants: keys, touch: options.touch) })
    case .linkVariants(let links): machine.variantsLinked(Result { try linked(links) })
    case .readIndex(let keys): machine.indexRead(Result { try cache.lookUp(keys: keys) })
    case .readFailures(let requests):
      machine.failuresRead(Result { try failures(of: requests, options: options) })
    case .note(let counts): cache.note(counts)
    case .readTiers(let keys, let read, let lookups):
      // The local cache alone: its hits from `read`, or from one read of the index.
      if let lookups { cache.note([.lookups: lookups]) }
      let hits = Result { () throws -> [String: CacheHit] in
        try read.map { try cache.hits(in: $0, touch: options.touch) }
          ?? cache.hits(forKeys: keys, touch: options.touch)
      }
      machine.tiersRead(hits, readOnlyBytes: 0)
    case .readValidators(let keys):
      machine.validatorsRead(Result { try cache.index.entries(forKeys: keys) })
    case .number(let count, let requests):
      let fingerprints = requests.map { fingerprint(options, $0) }
      machine.numbered(first: nextSequences(count), fingerprints: fingerprints)
    case .forget(let urls): for url in urls { try? cache.forgetFailure(url: url) }
    case .askRemoteVariants, .askRemote, .finish: break
    }
  }

  /// The recent failures recorded for `requests`, by URL: one query for the batch, each
  /// fingerprint made only for a URL that has a record.
  func failures(of requests: [RequestURL], options: FetchOptions) throws -> [String: FailedURL] {
    let questions = requests.map { request in
      (url: request.stripped, fingerprint: { self.fingerprint(options, request) })
    }
    return try cache.failures(of: questions, ttl: options.failedTTL)
  }

  /// ``lookupInTiers(keys:touch:read:)``'s answer, or its error.
  func hits(_ keys: [String], touch: Bool, read: IndexLookup?) async
    -> Result<[String: CacheHit], any Error>
  {
    do {
      return .success(try await lookupInTiers(keys: keys, touch: touch, read: read))
    } catch {
      return .failure(error)
    }
  }

  /// The bytes of the read-only directories' hits among `hits` (served, and counted).
  static func readOnlyBytes(_ hits: Result<[String: CacheHit], any Error>) -> Int64 {
    guard case .success(let hits) = hits else { return 0 }
    var bytes: Int64 = 0
    for case .readOnly(let path) in hits.values { bytes += FileIO.sizes(of: path)?.size ?? 0 }
    return bytes
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
