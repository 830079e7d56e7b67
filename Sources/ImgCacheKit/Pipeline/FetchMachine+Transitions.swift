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
      return plan.takesLock ? .lock(plan) : .submit(plan)
    case .waiting(let plan): return .waitForProcess(plan)
    case .transferring(_, let ticket): return .awaitResponse(ticket: ticket)
    case .following(let flight): return .follow(flight)
    case .checked(_, let pending) where fetch.needsDigestCheck:
      return checkDigest(&fetch, of: pending, rules: rules)
    case .checked(_, let pending): return .store(pending)
    case .stored(let outcome): return .writeBack(outcome, source: nil)
    case .variantStored(.derived(let entry, let path), let source):
      return .writeBack(.downloaded(entry, path: path), source: source)
    case .done(.success(let outcome)) where fetch.needsDigestCheck:
      return checkDigest(&fetch, of: outcome, rules: rules)
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

  /// Moves `fetch` on after `event`, and names what it calls for next: one function an event
  /// (AsyncHTTPClient's shape; FetchMachine+Events.swift), each nil when the fetch's state does
  /// not expect it; the variant's events, and any unexpected pair, go to
  /// ``variantEvent(_:for:rules:)``.
  static func handle(_ event: Event, for fetch: inout Fetch, rules: Rules) -> Action {
    let action: Action?
    switch event {
    case .proceed: action = proceeded(&fetch, rules: rules)
    case .robots(let answer): action = robots(answer, &fetch, rules: rules)
    case .joined(let flight, let leads): action = joined(flight, leads: leads, &fetch, rules: rules)
    case .locked(let attempt): action = locked(attempt, &fetch, rules: rules)
    case .submitted(let ticket): action = submitted(ticket, &fetch, rules: rules)
    case .waited(let lock, let served, let cancelled):
      action = waited(lock: lock, served: served, cancelled: cancelled, &fetch, rules: rules)
    case .followed(let result): action = followed(result, &fetch, rules: rules)
    case .responded(let response): action = responded(response, &fetch, rules: rules)
    case .partial(let fate): action = partial(fate, &fetch, rules: rules)
    case .stale(let copy): action = stale(copy, &fetch)
    case .revalidated(let result): action = revalidated(result, &fetch, rules: rules)
    case .checked(let result): action = checked(result, &fetch, rules: rules)
    case .stored(let result): action = stored(result, &fetch, rules: rules)
    case .digested(let actual): action = digested(actual, &fetch, rules: rules)
    case .variantLocked, .variantFound, .derived: action = nil
    }
    return action ?? variantEvent(event, for: &fetch, rules: rules)
  }
}
