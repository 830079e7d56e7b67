import FoundationEssentials

/// The machine's side of what comes back: arrivals from the inbox, responses advanced, fetches
/// settled, and where each fetch goes next.
extension PrefetchMachine {
  /// Event: what a take found in the inbox (nothing, when a wait's deadline passed or a look
  /// found nothing), at `now` (a wait may have been long).
  mutating func arrived(_ arrivals: FinishedDownloads.Arrivals, now: ContinuousClock.Instant) {
    self.now = now
    switch taking {
    case .probe(let then) where arrivals.isEmpty:
      // Nothing yet: a store that is due starts before the wait, which ends in time for the next.
      if scheduler.storeIsDue(now: now, inputEnded: run.inputEnded) { storeUnstored() }
      taking = .waiting(then: then)
      enqueue(.take(wait: true, deadline: scheduler.storeDeadline))
    case .now(let then), .probe(let then), .waiting(let then):
      taking = nil
      take(arrivals)
      step = .flush(then: then)
    case nil:
      assertionFailure("arrivals fed with no take asked for")
      take(arrivals)
    }
  }

  private mutating func take(_ arrivals: FinishedDownloads.Arrivals) {
    for result in arrivals.results {
      scheduler.children -= 1
      scheduler.ended(result.url)
      record(result)
    }
    for fetches in arrivals.stored {
      scheduler.storeEnded()
      for fetch in fetches { hand(fetch) }
    }
    queueSettles()
    var responses = [Response]()
    for (ticket, result) in arrivals.responses {
      guard let fetch = scheduler.transfers.removeValue(forKey: ticket) else {
        // Every ticket is in `transfers` before anything is taken; a stray body is not kept.
        assertionFailure("a response for ticket \(ticket), which no fetch holds")
        if case .success(let stray) = result, let file = stray.file { enqueue(.discard(file)) }
        continue
      }
      responses.append(Response(fetch: fetch, result: result))
    }
    if responses.isEmpty {
      advanced([])
    } else {
      enqueue(.advance(responses))
    }
  }

  /// Event: each response fed to its fetch, with the action the fetch now waits for: `store`
  /// (a checked body, for the next batch), `submit` (a refused resume, to start again), or
  /// another (``hand(_:_:)``).
  mutating func advanced(_ moved: [(fetch: Fetch, action: FetchMachine.Action)]) {
    var checked = [Fetch]()
    var restarted = [Fetch]()
    for (fetch, action) in moved {
      switch action {
      case .store: checked.append(fetch)
      case .submit: restarted.append(fetch)
      default: hand(fetch, action)
      }
    }
    queueSettles()
    scheduler.await(store: checked, now: now)
    if scheduler.storeIsDue(now: now, inputEnded: run.inputEnded) { storeUnstored() }
    if !restarted.isEmpty { enqueue(.submit(restarted)) }
  }

  /// Event: done fetches settled, their results.
  mutating func settled(_ results: [FetchResult]) {
    for result in results {
      scheduler.ended(result.url)
      record(result)
    }
  }

  /// Sends `fetch` where the action it waits for (its state's, unless given) says: kept until
  /// its response arrives, settled (an event), or to a task of its own for the actions that
  /// wait (a lock or flight, a variant, a write-back).
  mutating func hand(_ fetch: consuming Fetch, _ action: FetchMachine.Action? = nil) {
    var fetch = fetch  // moved, not copied: a fetch is a dozen references
    let action = action ?? FetchMachine.next(&fetch, rules: rules)
    switch action {
    case .awaitResponse(let ticket): scheduler.transfers[ticket] = fetch
    case .settle: settling.append(fetch)
    default:
      scheduler.children += 1
      enqueue(.spawn(fetch, action))
    }
  }

  /// Starts storing the checked bodies that wait, in one transaction: unless the store before
  /// is still running (they then join the next one).
  mutating func storeUnstored() {
    if let fetches = scheduler.takeStore() { enqueue(.store(fetches)) }
  }

  /// Counts `result` and keeps its event to send; a body not cached is deleted unless the
  /// run's reader keeps it.
  mutating func record(_ result: FetchResult) {
    outbox.append(run.record(result))
    if case .success(.notStored(let body)) = result.outcome, !run.keepsUncachedBodies {
      enqueue(.discard(body))
    }
  }
}
