import FoundationEssentials

/// The transitions (docs/architecture.md, The transition function): ``next(_:rules:)`` for
/// what a state calls for, ``handle(_:for:rules:)`` for what an event changes.
extension FetchMachine {
  /// What `fetch`'s state calls for. A fetch still in a lookup state (the lookup stages run on
  /// batches, before this) is done with a failure.
  static func next(_ fetch: inout Fetch, rules: Rules) -> Action {
    switch fetch.state {
    case .download(let plan):
      guard let request = fetch.request else {
        fetch.state = .done(.failure(CacheError(.invalidInput, "not a URL to download")))
        return .settle
      }
      // Before the flight and the lock: a robots.txt to fetch never holds up another fetch of
      // the key, nor another process.
      if plan.robots == .toConsult { return .consultRobots(request.stripped) }
      if fetch.flight == nil {
        return .join(
          FlightKey(
            key: fetch.key, url: request.stripped, conditional: plan.validators != nil,
            fingerprint: plan.fingerprint))
      }
      return plan.takesLock ? .lock : .submit(plan)
    case .waiting: return .waitForProcess
    case .transferring(_, let ticket): return .awaitResponse(ticket: ticket)
    case .following(let flight): return .follow(flight)
    case .checked: return .store
    case .stored(let outcome): return .writeBack(outcome, source: nil)
    case .variantStored(.derived(let entry, let path), let source):
      return .writeBack(.downloaded(entry, path: path), source: source)
    case .done(.success(let original)) where fetch.variant != nil:
      guard let spec = fetch.variant, original.path ?? original.uncachedBody != nil else {
        // An original with no body (an offline miss) has no variant.
        fetch.variant = nil
        return .settle
      }
      // The original is stored: its lock is let go before the variant's is taken (two keys
      // may share a lock byte, and a process never waits for a byte it holds).
      return .lockVariant(spec.derivedKey(for: fetch.key), releasing: fetch.lock)
    case .done: return .settle
    case .received(let plan, let response):
      return received(&fetch, plan: plan, response: response, rules: rules)
    case .checking:
      // Checked at once by the owner that took the response: a body to check cannot wait.
      fetch.state = .done(
        .failure(CacheError(.localIO, "internal error: a body to check was lost")))
      return .settle
    case .deriving(let derivation):
      return derivation.uncachedBody == nil ? .findVariant(derivation.key) : .derive(derivation)
    case .storingVariant(let derivation, let made):
      return .storeVariant(
        made, derivation, discardingOriginal: rules.discardsOriginal && derivation.source != nil)
    case .lookup, .missing, .stale:
      fetch.state = .done(.failure(CacheError(.localIO, "not looked up", url: fetch.display)))
      return .settle
    case .variantStored:
      fetch.state = .done(
        .failure(CacheError(.localIO, "internal error: a variant stored as no variant")))
      return .settle
    }
  }

  /// Moves `fetch` on after `event`, and names what it calls for next. (It switches on the
  /// event, then on the state: a tuple of both copied two enums of hundreds of bytes at every
  /// transition.)
  static func handle(_ event: Event, for fetch: inout Fetch, rules: Rules) -> Action {
    switch event {
    case .proceed:
      switch fetch.state {
      case .stored(let outcome), .variantStored(let outcome, _):
        // Written back (or not: a write-back never fails the fetch).
        fetch.state = .done(.success(outcome))
      default: break
      }
      return next(&fetch, rules: rules)
    case .robots(let answer):
      guard case .download(var plan) = fetch.state else { break }
      switch answer {
      case .allowed:
        plan.robots = .cleared
        fetch.state = .download(plan)
      case .refused(let error):
        fetch.state = .done(.failure(error))
        // Counted (a refusal is no failed request: never recorded).
        return .noteFailure(error, recordingUnder: nil)
      }
      return next(&fetch, rules: rules)
    case .joined(let flight, let leads):
      guard case .download = fetch.state else { break }
      if leads { fetch.flight = flight } else { fetch.state = .following(flight) }
      return next(&fetch, rules: rules)
    case .locked(let attempt):
      guard case .download(var plan) = fetch.state else { break }
      plan.takesLock = false
      switch attempt {
      case .busy:
        fetch.state = .waiting(plan)
      case .held(let lock):
        fetch.lock = lock
        fetch.state = .download(plan)
      case .storedMeanwhile(let hit):
        fetch.state = .done(.success(.hit(hit)))
      case .unavailable:
        fetch.state = .download(plan)
      }
      return next(&fetch, rules: rules)
    case .submitted(let ticket):
      guard case .download(let plan) = fetch.state else { break }
      fetch.state = .transferring(plan, ticket: ticket)
      return next(&fetch, rules: rules)
    case .waited(let lock, let served, let cancelled):
      guard case .waiting(let plan) = fetch.state else { break }
      fetch.lock = lock
      if cancelled {
        fetch.state = .done(.failure(CacheError(.cancelled, "cancelled")))
      } else {
        // Nothing stored: the holder failed or died part way; this fetch downloads (resumes).
        fetch.state = served.map { .done(.success(.hit($0))) } ?? .download(plan)
      }
      return next(&fetch, rules: rules)
    case .followed(let result):
      guard case .following = fetch.state else { break }
      // The leader's result is this fetch's, its variant included (one batch, one variant).
      (fetch.state, fetch.bytes, fetch.served, fetch.variant) = (
        .done(result.outcome), result.bytes, result.variant, nil
      )
      return next(&fetch, rules: rules)
    case .responded(let response):
      if case .transferring(let plan, _) = fetch.state {
        return received(&fetch, plan: plan, response: response, rules: rules)
      }
      // The transfer could not be submitted (the cache's directories could not be made):
      // done with that, as when a batch's could not be.
      if case .download = fetch.state, case .failure(let error) = response {
        fetch.state = .done(.failure(error))
        return next(&fetch, rules: rules)
      }
    case .partial(let fate):
      guard case .received(let plan, .failure(let error)) = fetch.state else { break }
      return failed(&fetch, plan: plan, error: error, fate: fate, rules: rules)
    case .stale(let copy):
      guard case .received(let plan, .failure(let error)) = fetch.state else { break }
      fetch.state = copy.map { .done(.success($0)) } ?? .done(.failure(error))
      // Counted either way; recorded only when nothing stood in for it.
      return .noteFailure(
        error, recordingUnder: copy == nil ? recorded(error, plan: plan, fetch: fetch) : nil)
    case .revalidated(let result):
      guard case .received = fetch.state else { break }
      fetch.state = .done(result)
      return next(&fetch, rules: rules)
    case .checked(let checked):
      guard case .checking(let plan, let storable) = fetch.state else { break }
      return checkedBody(&fetch, plan: plan, storable: storable, checked: checked, rules: rules)
    case .stored(let result):
      guard case .checked(let plan, _) = fetch.state else { break }
      switch result {
      case .failure(let error):
        fetch.state = .done(.failure(error))
        return .noteFailure(error, recordingUnder: nil)
      case .success(let body):
        let outcome: FetchOutcome =
          plan.validators == nil
          ? .downloaded(body.entry, path: body.path) : .revalidated(body.entry, path: body.path)
        fetch.state = rules.writesBack ? .stored(outcome) : .done(.success(outcome))
        return next(&fetch, rules: rules)
      }
    case .variantLocked, .variantFound, .derived: break
    }
    return variantEvent(event, for: &fetch, rules: rules)
  }
}
