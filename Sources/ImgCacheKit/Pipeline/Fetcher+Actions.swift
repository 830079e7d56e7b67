import FoundationEssentials
import Glibc

/// The owner's side of ``FetchMachine``: each action performed, and what came of it returned as
/// the event the machine takes next. Nothing here decides where a fetch goes.
extension Fetcher {
  /// The facts of a run the transition function decides on.
  func rules(_ options: FetchOptions) -> FetchMachine.Rules {
    FetchMachine.Rules(
      writesBack: writesBack(options), httpFreshness: options.freshness.mode == .http,
      discardsOriginal: options.discardOriginal)
  }

  /// Performs `action` for `fetch` at once, when it neither waits nor needs a batch: its event.
  /// Nil for the actions that wait (a transfer, a flight, another process, a store, a
  /// write-back, a variant's lock or derivation) and for `settle`: the owner performs those
  /// its own way (``perform(_:for:options:)`` one fetch at a time, a prefetch in batches).
  func performNow(_ action: FetchMachine.Action, for fetch: Fetch, options: FetchOptions)
    -> FetchMachine.Event?
  {
    switch action {
    case .consultRobots(let url):
      return robotsAnswerNow(for: url).map { .robots($0) }
    case .join(let flight):
      return .joined(flight, leads: flights.join(flight))
    case .lock(let plan):
      return .locked(lockAttempt(for: fetch, plan: plan, options: options))
    case .settlePartial(let error):
      return .partial(keepsPartial(after: error, key: fetch.key))
    case .makeRoom:
      // A full disk: the other kept partial bodies yield to this download.
      cache.giveUpPartials(sparing: fetch.key)
      return .proceed
    case .serveStale(let entry, let error):
      return .stale(staleCopy(entry, after: error, options: options))
    case .noteFailure(let error, let fingerprint):
      cache.noteFailure(error)
      if let fingerprint, let request = fetch.request {
        try? cache.recordFailure(url: request.stripped, fingerprint: fingerprint, error: error)
      }
      return .proceed
    case .revalidate(let response):
      return .revalidated(revalidated(key: fetch.key, with: response))
    case .check(let response, let file):
      return .checked(checked(response, for: fetch, file: file, options: options))
    case .count(let counter):
      cache.note([counter: 1])
      return .proceed
    case .handOver(let body):
      cache.note([.derivations: 1])
      unlink(body)
      return .proceed
    case .refuse(let body, let error):
      if let body { unlink(body) }
      cache.noteFailure(error)
      return .proceed
    case .submit, .awaitResponse, .follow, .waitForProcess, .store, .writeBack, .lockVariant,
      .findVariant, .derive, .storeVariant, .digest, .settle:
      return nil
    }
  }

  /// Performs `action` for `fetch`, waiting as it must: its event. (`settle` is the owner's.)
  func perform(_ action: FetchMachine.Action, for fetch: Fetch, options: FetchOptions) async
    -> FetchMachine.Event
  {
    if let event = performNow(action, for: fetch, options: options) { return event }
    switch action {
    case .consultRobots(let url):
      return .robots(await robotsAnswer(for: url))
    case .submit(let plan):
      do { try cache.prepare() } catch {
        return .responded(.failure(CacheError.io("cannot create the cache", error)))
      }
      let request = downloadRequest(for: fetch, plan: plan)
      return .submitted(ticket: transport.submit([request])[0])
    case .awaitResponse(let ticket):
      let response = await transport.result(of: ticket)
      writePartialRecords(before: CollectionOfOne(fetch))
      return .responded(response)
    case .follow(let flight):
      return .followed(await flights.result(of: flight))
    case .waitForProcess(let plan):
      return await waitForProcess(fetch, plan: plan, options: options)
    case .store(let pending):
      return .stored(await stores.store(pending, alone: options.storesAlone).map(storedBody))
    case .writeBack(let outcome, let source):
      await writeBack(outcome, options: options, source: source)
      return .proceed
    case .lockVariant(let key, let releasing):
      releasing?.release()
      return .variantLocked(await lockVariant(key))
    case .findVariant(let key):
      let found = try? current(variants: [key], touch: options.touch)[key]
      if case .local? = found { cache.note([.variantHits: 1]) }
      return .variantFound(found)
    case .derive(let derivation):
      return .derived(await derive(derivation, options: options))
    case .digest(let source, let algorithm):
      return .digested(digest(of: source, algorithm))
    case .storeVariant(let made, let derivation, let discarding):
      return .stored(
        await store(
          made, derivation, for: fetch, discardingOriginal: discarding,
          alone: options.storesAlone
        ).map(storedBody))
    default:
      return .proceed
    }
  }

  /// The digest of the body `source` names, lowercase hex; nil when it cannot be read (or, for
  /// a variant's original: its link records no SHA-256 and the original is not stored, or an
  /// MD5 is asked and the stored original is not the body the variant was made from).
  func digest(of source: FetchMachine.DigestSource, _ algorithm: HashAlgorithm) -> String? {
    let path: String
    switch source {
    case .file(let file): path = file
    case .original(let variant, let original):
      let made = (try? cache.index.variantLinks(forKeys: [variant]))?[variant]?.sourceSHA256
      if algorithm == .sha256, let made { return made }
      guard let entry = try? cache.storedEntries(forKeys: [original]).first,
        made == nil || entry.sha256 == made
      else { return nil }
      if algorithm == .sha256, let recorded = entry.sha256 { return recorded }
      path = cache.layout.dataPath(entry.file)
    }
    switch algorithm {
    case .sha256: return try? SHA256.hex(ofFileAt: path)
    case .md5: return try? MD5.hex(ofFileAt: path)
    }
  }

  /// The digest of the original `variant` was made from (``FetchMachine/DigestSource``'s
  /// `original`); nil when it cannot be known.
  package func originalDigest(of variant: VariantInfo, _ algorithm: HashAlgorithm) -> String? {
    digest(of: .original(variant: variant.key, original: variant.originalKey), algorithm)
  }

  /// A stored entry with its file's path.
  func storedBody(_ entry: CacheEntry) -> FetchMachine.StoredBody {
    FetchMachine.StoredBody(entry: entry, path: cache.layout.dataPath(entry.file))
  }

  /// Moves `fetch` through its actions until it is done (a fetch the lookup finished is done
  /// already; `action`, when given, is the one it waits for), then settles it. A retry is an
  /// event that moves it back to an earlier state, never a call back into an earlier function.
  func drive(_ fetch: Fetch, options: FetchOptions, action: FetchMachine.Action? = nil) async
    -> FetchResult
  {
    var fetch = fetch
    let rules = rules(options)
    var action = action ?? FetchMachine.next(&fetch, rules: rules)
    while true {
      if case .settle = action { return settle(fetch) }
      let event = await perform(action, for: fetch, options: options)
      action = FetchMachine.handle(event, for: &fetch, rules: rules)
    }
  }
}
