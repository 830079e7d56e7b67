import Foundation

/// The owner's side of ``JobMachine``: each action performed, and what came of it returned as
/// the event the machine takes next. Nothing here decides where a job goes.
extension Fetcher {
  /// The facts of a run the transition function decides on.
  func rules(_ options: FetchOptions) -> JobMachine.Rules {
    JobMachine.Rules(
      writesBack: writesBack(options), httpFreshness: options.freshness.mode == .http,
      discardsOriginal: options.discardOriginal)
  }

  /// Performs `action` for `job` at once, when it neither waits nor needs a batch: its event.
  /// Nil for the actions that wait (a transfer, a flight, another process, a store, a
  /// write-back, a variant's lock or derivation) and for `settle`: the owner performs those
  /// its own way (``perform(_:for:options:)`` one job at a time, a prefetch in batches).
  func performNow(_ action: JobMachine.Action, for job: Job, options: FetchOptions)
    -> JobMachine.Event?
  {
    switch action {
    case .consultRobots(let url):
      return robotsAnswerNow(for: url).map { .robots($0) }
    case .join(let flight):
      return .joined(flight, leads: flights.join(flight))
    case .lock:
      return .locked(lockAttempt(for: job, options: options))
    case .settlePartial(let error):
      return .partial(keepsPartial(after: error, key: job.key))
    case .makeRoom:
      // A full disk: the other kept partial bodies yield to this download.
      cache.giveUpPartials(sparing: job.key)
      return .proceed
    case .serveStale(let entry, let error):
      return .stale(staleCopy(entry, after: error, options: options))
    case .noteFailure(let error, let fingerprint):
      cache.noteFailure(error)
      if let fingerprint, let request = job.request {
        try? cache.recordFailure(url: request.stripped, fingerprint: fingerprint, error: error)
      }
      return .proceed
    case .revalidate(let response):
      return .revalidated(revalidated(key: job.key, with: response))
    case .check(let response, let file):
      return .checked(checked(response, for: job, file: file, options: options))
    case .count(let counter):
      cache.note([counter: 1])
      return .proceed
    case .handOver(let body):
      cache.note([.derivations: 1])
      unlink(body)
      return .proceed
    case .submit, .awaitResponse, .follow, .waitForProcess, .store, .writeBack, .lockVariant,
      .findVariant, .derive, .storeVariant, .settle:
      return nil
    }
  }

  /// Performs `action` for `job`, waiting as it must: its event. (`settle` is the owner's.)
  func perform(_ action: JobMachine.Action, for job: Job, options: FetchOptions) async
    -> JobMachine.Event
  {
    if let event = performNow(action, for: job, options: options) { return event }
    switch action {
    case .consultRobots(let url):
      return .robots(await robotsAnswer(for: url))
    case .submit(let plan):
      do { try cache.prepare() } catch {
        return .responded(.failure(CacheError.io("cannot create the cache", error)))
      }
      let request = downloadRequest(for: job, plan: plan)
      return .submitted(ticket: transport.submit([request])[0])
    case .awaitResponse(let ticket):
      let response = await transport.result(of: ticket)
      // The loop only handed over "a partial started": written before anything deletes it.
      if job.lock != nil { cache.flushPartialRecords() }
      return .responded(response)
    case .follow(let flight):
      return .followed(await flights.result(of: flight))
    case .waitForProcess:
      return await waitForProcess(job, options: options)
    case .store:
      guard case .checked(_, let pending) = job.state else { return .proceed }
      return .stored(await store(pending, alone: options.storesAlone).map(storedBody))
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
    case .storeVariant(let made, let derivation, let discarding):
      return .stored(
        await store(made, derivation, for: job, discardingOriginal: discarding).map(storedBody))
    default:
      return .proceed
    }
  }

  /// A stored entry with its file's path.
  func storedBody(_ entry: CacheEntry) -> JobMachine.StoredBody {
    JobMachine.StoredBody(entry: entry, path: cache.layout.dataPath(entry.file))
  }

  /// Moves `job` through its actions until it is done (a job the lookup finished is done
  /// already; `action`, when given, is the one it waits for), then settles it. A retry is an
  /// event that moves it back to an earlier state, never a call back into an earlier function.
  func drive(_ job: Job, options: FetchOptions, action: JobMachine.Action? = nil) async
    -> FetchResult
  {
    var job = job
    let rules = rules(options)
    var action = action ?? JobMachine.next(&job, rules: rules)
    while true {
      if case .settle = action { return settle(job) }
      let event = await perform(action, for: job, options: options)
      action = JobMachine.handle(event, for: &job, rules: rules)
    }
  }
}
