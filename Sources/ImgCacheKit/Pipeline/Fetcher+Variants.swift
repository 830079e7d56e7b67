import Foundation
import Synchronization

/// The two stages of image variants (docs/architecture.md, Variants: two more stages):
/// `lookVariant` before the original's lookup, `derive` once the original is done.
extension Fetcher {
  /// Stage: a job that asks for a variant looks up the variant's own key first (the local
  /// cache). A stored variant made from the original's current body is served, and the
  /// original is not looked up at all; otherwise the job goes on for its original, carrying
  /// the variant to derive.
  func lookVariant(
    _ jobs: inout [Job], _ spec: VariantSpec, options: FetchOptions, tally: inout LookupTally
  ) async throws {
    let asked = jobs.indices.filter { jobs[$0].isLookup }
    for index in asked { jobs[index].variant = spec }
    // `--reload` and `--refresh` ask the origin for the original; `derive` still serves a
    // variant that is current after a 304.
    guard options.mode == .normal || options.mode == .offline, !asked.isEmpty else { return }
    var keys = [String: Int]()
    // The canonical form made once (``VariantSpec/derivedKey(for:)`` makes it each call).
    let canonical = spec.canonical
    let suffix = VariantSpec.keySeparator + canonical
    for index in asked { keys[jobs[index].key + suffix] = index }
    let found = try current(variants: Array(keys.keys), touch: options.touch)
    for (derivedKey, index) in keys {
      guard let hit = found[derivedKey], case .local(let entry, _) = hit else { continue }
      jobs[index].serve(hit, variant: entry, spec: canonical)
    }
    tally.countVariantHits(found.count)
    // The remote tier shares variants like originals: a fleet derives each once.
    var urls = [String: String]()
    for (derivedKey, index) in keys where found[derivedKey] == nil {
      if let request = jobs[index].request { urls[derivedKey] = request.stripped }
    }
    // A copy must be this variant (its spec's format and size, its original named), and it
    // is linked to the original it was made from: served only while that original has not
    // changed here, derived again when it does.
    let sources = Mutex<[String: String]>([:])
    let shared = await remoteHits(keys: Array(urls.keys), urls: urls, options: options) {
      key, metadata, body in
      try spec.check(remote: metadata, body: body)
      sources.withLock { $0[key] = metadata.sourceSHA256?.lowercased() }
    }
    let made = sources.withLock { $0 }
    let links = shared.keys.compactMap { derivedKey -> VariantLink? in
      guard let index = keys[derivedKey] else { return nil }
      return VariantLink(
        key: derivedKey, original: jobs[index].key, spec: canonical,
        sourceSHA256: made[derivedKey])
    }
    guard !links.isEmpty else { return }
    try? cache.recordVariantLinks(links)
    let current = try cache.lookUp(keys: links.map(\.key), variants: true)
    var served = 0
    for (derivedKey, hit) in shared where !current.outdated.contains(derivedKey) {
      guard let index = keys[derivedKey], case .remote(let entry, _, _) = hit else { continue }
      jobs[index].serve(hit, variant: entry, spec: canonical)
      served += 1
    }
    tally.countVariantHits(served)
  }

  /// The stored variants among `keys` (distinct) that are current: derived from the body
  /// their original has now (or whose original is gone: nothing to compare). One read of the
  /// index finds the rows and those out of date; only the current are used (`touch`).
  func current(variants keys: [String], touch: Bool) throws -> [String: CacheHit] {
    let read = try cache.lookUp(keys: keys, variants: true)
    return try cache.hits(in: read.dropping(read.outdated), touch: touch)
  }

  /// Stage: the original is done (a hit or a download); its variant is made from it, once
  /// across processes (the derived key's lock), stored under the derived key with a link to
  /// the original, and served. A variant another process made meanwhile is served as it is.
  func derive(_ job: Job, from original: FetchOutcome, options: FetchOptions) async -> Job {
    var job = job
    guard let spec = job.variant else { return job }
    job.variant = nil
    // The original is stored: its lock is let go before the variant's is taken (two keys may
    // share a lock byte, and a process never waits for a byte it holds).
    job.lock?.release()
    job.lock = nil
    guard let path = original.path ?? original.uncachedBody else { return job }  // offline miss
    let derivedKey = spec.derivedKey(for: job.key)
    var lock: KeyLock?
    if case .success(let held) = Result(catching: { try cache.keyLocks.attempt(key: derivedKey) }) {
      lock = held
      if held == nil {
        // Another job or process derives it: wait for it, then serve what it stored.
        lock = try? await cache.keyLocks.wait(
          key: derivedKey, until: lockDeadline(), idle: lockIdle(), progress: { -1 })
      }
    }
    defer { lock?.release() }
    let source = original.storedEntry
    if original.uncachedBody == nil,
      let stored = try? current(variants: [derivedKey], touch: options.touch)[derivedKey],
      case .local(let entry, _) = stored
    {
      cache.note([.variantHits: 1])
      job.serve(stored, variant: entry, spec: spec.canonical)
      return job
    }
    let deriver = Deriver(limits: options.derivationLimits)
    let made: DerivedVariant
    do {
      let threads = derivationThreads
      // The slot is held until the derivation's thread returns, even when this job stopped
      // waiting for it: a derivation given up still takes a core.
      await derivations.acquire()
      // A run cancelled while this job waited for a slot starts no derivation.
      guard !Task.isCancelled else {
        derivations.release()
        throw CacheError(.cancelled, "cancelled")
      }
      // Within its budget (derive_timeout): libvips is stopped between tiles; a decoder that
      // does not come back is left to finish in the background, its result dropped, and this
      // job (the rest of a prefetch, a co-process) goes on. A cancel (SIGINT, SIGTERM) stops it
      // the same way and removes its temporary file at once.
      let budget = DerivationBudget(seconds: deriver.limits.timeout)
      let waits = budget.seconds > 0 && budget.seconds < PolicyValue.maxDuration
      made = try await Blocking.run(
        waitingAtMost: waits ? Duration.seconds(budget.seconds + 0.5) : nil,
        timedOut: budget.overBudget, giveUp: budget.abandon
      ) { [cache, derivations] in
        defer { derivations.release() }
        try Deriver.setConcurrency(threads)
        return try deriver.derive(
          original: path, spec: spec, into: cache.layout.tmpPath, budget: budget)
      }
    } catch {
      let failure = CacheError.io("cannot derive the variant", error)
      if failure.kind != .cancelled { cache.note([.derivationFailures: 1]) }
      job.state = .done(.failure(failure))
      return job
    }
    if let body = original.uncachedBody {
      cache.note([.derivations: 1])
      // An original the origin said not to store: its variant is handed over, not stored.
      unlink(body)
      job.state = .done(.success(.notStored(body: made.path)))
      job.served = VariantInfo(made, spec: spec, original: job.key)
      return job
    }
    job.state = .done(
      stored(made, key: derivedKey, spec: spec, job: job, source: source, options: options))
    if case .done(.success(.derived(let entry, let path))) = job.state {
      job.served = VariantInfo(entry, spec: spec.canonical, original: job.key)
      // With the original it was made from, so that other machines check it and link it.
      await writeBack(
        .downloaded(entry, path: path), options: options,
        source: source.flatMap(VariantSource.init(original:)))
    }
    return job
  }

  /// Stores a variant just made (or hands it over unstored when its original may not be
  /// stored), dropping the original when asked to.
  private func stored(
    _ made: DerivedVariant, key: String, spec: VariantSpec, job: Job, source: CacheEntry?,
    options: FetchOptions
  ) -> Result<FetchOutcome, CacheError> {
    var metadata = EntryMetadata(
      format: made.format, width: made.width, height: made.height,
      contentType: made.format.mimeType, sha256: try? SHA256.hex(ofFileAt: made.path))
    metadata.shareable = source?.shareable ?? false
    var pending = PendingStore(
      temporaryPath: made.path, key: key, url: job.request?.stripped ?? job.given,
      metadata: metadata)
    pending.knownFile = CacheLayout.relativeFile(
      named: VariantSpec.fileName(derivedKey: key, format: made.format))
    pending.variant = VariantLink(
      key: key, original: job.key, spec: spec.canonical, sourceSHA256: source?.sha256)
    return storeAlone(pending, what: "the variant", counting: (.derivations, .bytesDerived)).map {
      entry in
      if options.discardOriginal, source != nil { _ = try? cache.remove(key: job.key) }
      return .derived(entry, path: cache.layout.dataPath(entry.file))
    }
  }
}

extension Job {
  /// Done with `hit`, the stored variant `entry` made with the canonical spec `spec`.
  mutating func serve(_ hit: CacheHit, variant entry: CacheEntry, spec: String) {
    state = .done(.success(.hit(hit)))
    variant = nil
    served = VariantInfo(entry, spec: spec, original: key)
  }
}

extension VariantInfo {
  /// What `entry`, a stored variant made with `spec` (canonical) from the original
  /// `original`, is.
  init(_ entry: CacheEntry, spec: String, original: String) {
    self.init(
      key: entry.key, spec: spec, width: entry.width, height: entry.height,
      format: entry.format.flatMap(ImageFormat.init(rawValue:)), originalKey: original)
  }

  /// What `made`, a variant just derived with `spec` from the original `original`, is.
  init(_ made: DerivedVariant, spec: VariantSpec, original: String) {
    self.init(
      key: spec.derivedKey(for: original), spec: spec.canonical, width: made.width,
      height: made.height, format: made.format, originalKey: original)
  }
}

extension FetchOutcome {
  /// The entry this outcome stored or served from this cache, if any.
  var storedEntry: CacheEntry? {
    switch self {
    case .hit(.local(let entry, _)), .hit(.remote(let entry, _, _)), .downloaded(let entry, _),
      .revalidated(let entry, _), .notModified(let entry, _), .stale(let entry, _, _),
      .derived(let entry, _):
      return entry
    case .hit(.readOnly), .offlineMiss, .notStored: return nil
    }
  }

  /// The body of a download that may not be cached (`no-store`), if this is one.
  var uncachedBody: String? {
    if case .notStored(let body) = self { return body }
    return nil
  }
}
