import FoundationEssentials
import Synchronization

/// Image variants (docs/architecture.md, Variants: their own states): the I/O of the variant's
/// lookup stage (``LookupMachine``), and of the variant's states once the original is done.
extension Fetcher {
  /// The remote tier's copies of the variants of `urls` (derived key → the original's URL),
  /// each checked to be this variant (its spec's format and size, its original named), with the
  /// SHA-256 of the original each was made from, by key.
  func remoteVariants(_ spec: VariantSpec, urls: [String: String], options: FetchOptions) async
    -> (shared: [String: CacheHit], sources: [String: String])
  {
    let sources = Mutex<[String: String]>([:])
    let shared = await remoteHits(keys: Array(urls.keys), urls: urls, options: options) {
      key, metadata, body in
      try spec.check(remote: metadata, body: body)
      sources.withLock { $0[key] = metadata.sourceSHA256?.lowercased() }
    }
    return (shared, sources.withLock { $0 })
  }

  /// Records `links` (remote variants to their originals), then reads which of them are out
  /// of date: an original that changed here since makes its variant one to derive again.
  func linked(_ links: [VariantLink]) throws -> Set<String> {
    try? cache.recordVariantLinks(links)
    return try cache.lookUp(keys: links.map(\.key), variants: true).outdated
  }

  /// The stored variants among `keys` (distinct) that are current: derived from the body
  /// their original has now (or whose original is gone: nothing to compare). One read of the
  /// index finds the rows and those out of date; only the current are used (`touch`).
  func current(variants keys: [String], touch: Bool) throws -> [String: CacheHit] {
    let read = try cache.lookUp(keys: keys, variants: true)
    return try cache.hits(in: read.dropping(read.outdated), touch: touch)
  }

  /// The variant's lock between processes, taken at once or once the fetch or process that
  /// holds it (deriving the same variant) lets it go; nil when none could be had.
  func lockVariant(_ key: String) async -> KeyLock? {
    guard case .success(let held) = Result(catching: { try cache.keyLocks.attempt(key: key) })
    else { return nil }
    if let held { return held }
    return try? await cache.keyLocks.wait(
      key: key, until: lockDeadline(), idle: lockIdle(), progress: { -1 })
  }

  /// The variant of `derivation` made from its original's body, within its budget
  /// (`derive_timeout`): libvips is stopped between tiles; a decoder that does not come back
  /// is left to finish in the background, its result dropped, and this fetch (the rest of a
  /// prefetch, a co-process) goes on. A cancel (SIGINT, SIGTERM) stops it the same way and
  /// removes its temporary file at once.
  func derive(_ derivation: FetchMachine.Derivation, options: FetchOptions) async
    -> Result<DerivedVariant, CacheError>
  {
    let deriver = Deriver(limits: options.derivationLimits)
    let (spec, path, threads) = (derivation.spec, derivation.path, derivationThreads)
    do {
      // The slot is held until the derivation's thread returns, even when this fetch stopped
      // waiting for it: a derivation given up still takes a core.
      await derivations.acquire()
      // A run cancelled while this fetch waited for a slot starts no derivation.
      guard !Task.isCancelled else {
        derivations.release()
        throw CacheError(.cancelled, "cancelled")
      }
      let budget = DerivationBudget(seconds: deriver.limits.timeout)
      let waits = budget.seconds > 0 && budget.seconds < PolicyValue.maxDuration
      return .success(
        try await Blocking.run(
          waitingAtMost: waits ? Duration.seconds(budget.seconds + 0.5) : nil,
          timedOut: budget.overBudget, giveUp: budget.abandon
        ) { [cache, derivations] in
          defer { derivations.release() }
          try Deriver.setConcurrency(threads)
          return try deriver.derive(
            original: path, spec: spec, into: cache.layout.tmpPath, budget: budget)
        })
    } catch {
      return .failure(CacheError.io("cannot derive the variant", error))
    }
  }

  /// Stores a variant just made under its key, linked to the original it was made from,
  /// dropping the original when `discardingOriginal`; `alone` as ``StoreBatcher`` has it.
  func store(
    _ made: DerivedVariant, _ derivation: FetchMachine.Derivation, for fetch: Fetch,
    discardingOriginal: Bool, alone: Bool
  ) async -> Result<CacheEntry, CacheError> {
    var metadata = EntryMetadata(
      format: made.format, width: made.width, height: made.height,
      contentType: made.format.mimeType, sha256: try? SHA256.hex(ofFileAt: made.path))
    metadata.shareable = derivation.source?.shareable ?? false
    var pending = PendingStore(
      temporaryPath: made.path, key: derivation.key, url: fetch.request?.stripped ?? fetch.given,
      metadata: metadata)
    pending.knownFile = CacheLayout.relativeFile(
      named: VariantSpec.fileName(derivedKey: derivation.key, format: made.format))
    pending.variant = VariantLink(
      key: derivation.key, original: fetch.key, spec: derivation.spec.canonical,
      sourceSHA256: derivation.source?.sha256)
    let stored = await variantStores.store(pending, alone: alone)
    if case .success = stored, discardingOriginal { _ = try? await cache.remove(key: fetch.key) }
    return stored
  }
}

extension Fetch {
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
  package var storedEntry: CacheEntry? {
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
