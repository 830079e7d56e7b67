import FoundationEssentials

/// One function an event of the original's way (docs/architecture.md, The transition function):
/// each moves `fetch` on and names the action it calls for, or answers nil when the fetch's state
/// does not expect the event (``handle(_:for:rules:)`` then hands it to the variant's events).
extension FetchMachine {
  /// A step that needs no answer was performed; a write-back never fails the fetch.
  static func proceeded(_ fetch: inout Fetch, rules: Rules) -> Action? {
    switch fetch.state {
    case .stored(let outcome), .variantStored(let outcome, _):
      fetch.state = .done(.success(outcome))
    default: break
    }
    return next(&fetch, rules: rules)
  }

  /// robots.txt answered for the URL.
  static func robots(_ answer: RobotsAnswer, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard case .download(var plan) = fetch.state else { return nil }
    switch answer {
    case .allowed:
      plan.robots = .cleared
      fetch.state = .download(plan)
      return next(&fetch, rules: rules)
    case .refused(let error):
      fetch.state = .done(.failure(error))
      // Counted (a refusal is no failed request: never recorded).
      return .noteFailure(error, recordingUnder: nil)
    }
  }

  /// The fetch joined its request's flight, leading it or following its leader.
  static func joined(_ flight: FlightKey, leads: Bool, _ fetch: inout Fetch, rules: Rules)
    -> Action?
  {
    guard case .download = fetch.state else { return nil }
    if leads { fetch.flight = flight } else { fetch.state = .following(flight) }
    return next(&fetch, rules: rules)
  }

  /// A try of the key's lock between processes found `attempt`.
  static func locked(_ attempt: LockAttempt, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard case .download(var plan) = fetch.state else { return nil }
    plan.takesLock = false
    switch attempt {
    case .busy: fetch.state = .waiting(plan)
    case .held(let lock):
      fetch.lock = lock
      fetch.state = .download(plan)
    case .storedMeanwhile(let hit): fetch.state = .done(.success(.hit(hit)))
    case .unavailable: fetch.state = .download(plan)
    }
    return next(&fetch, rules: rules)
  }

  /// The transfer went to the downloader under `ticket`.
  static func submitted(_ ticket: UInt64, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard case .download(let plan) = fetch.state else { return nil }
    fetch.state = .transferring(plan, ticket: ticket)
    return next(&fetch, rules: rules)
  }

  /// The wait for another process's download ended: with its lock, what it stored, or a cancel.
  static func waited(
    lock: KeyLock?, served: CacheHit?, cancelled: Bool, _ fetch: inout Fetch, rules: Rules
  ) -> Action? {
    guard case .waiting(let plan) = fetch.state else { return nil }
    fetch.lock = lock
    if cancelled {
      fetch.state = .done(.failure(CacheError(.cancelled, "cancelled")))
    } else {
      // Nothing stored: the holder failed or died part way; this fetch downloads (resumes).
      fetch.state = served.map { .done(.success(.hit($0))) } ?? .download(plan)
    }
    return next(&fetch, rules: rules)
  }

  /// The flight's leader finished: its result is this fetch's, its variant included (one
  /// batch, one variant).
  static func followed(_ result: FetchResult, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard case .following = fetch.state else { return nil }
    (fetch.state, fetch.bytes, fetch.served, fetch.variant) = (
      .done(result.outcome), result.bytes, result.variant, nil
    )
    return next(&fetch, rules: rules)
  }

  /// The transfer ended (or could not be submitted: the cache's directories could not be made,
  /// done with that, as when a batch's could not be).
  static func responded(
    _ response: Result<DownloadResponse, CacheError>, _ fetch: inout Fetch, rules: Rules
  ) -> Action? {
    if case .transferring(let plan, _) = fetch.state {
      return received(&fetch, plan: plan, response: response, rules: rules)
    }
    guard case .download = fetch.state, case .failure(let error) = response else { return nil }
    fetch.state = .done(.failure(error))
    return next(&fetch, rules: rules)
  }

  /// What becomes of a failed transfer's partial body.
  static func partial(_ fate: Fetcher.PartialFate, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard case .received(let plan, .failure(let error)) = fetch.state else { return nil }
    return failed(&fetch, plan: plan, error: error, fate: fate, rules: rules)
  }

  /// A stale copy stands in for a failed revalidation, or none does. Counted either way;
  /// recorded only when nothing stood in for it.
  static func stale(_ copy: FetchOutcome?, _ fetch: inout Fetch) -> Action? {
    guard case .received(let plan, .failure(let error)) = fetch.state else { return nil }
    fetch.state = copy.map { .done(.success($0)) } ?? .done(.failure(error))
    return .noteFailure(
      error, recordingUnder: copy == nil ? recorded(error, plan: plan, fetch: fetch) : nil)
  }

  /// A 304 updated the stored entry.
  static func revalidated(
    _ result: Result<FetchOutcome, CacheError>, _ fetch: inout Fetch, rules: Rules
  ) -> Action? {
    guard case .received = fetch.state else { return nil }
    fetch.state = .done(result)
    return next(&fetch, rules: rules)
  }

  /// The body's checks answered.
  static func checked(
    _ checked: Result<PendingStore, CacheError>, _ fetch: inout Fetch, rules: Rules
  ) -> Action? {
    guard case .checking(let plan, let storable) = fetch.state else { return nil }
    return checkedBody(&fetch, plan: plan, storable: storable, checked: checked, rules: rules)
  }

  /// The original's body was stored (a variant's store is the variant's event).
  static func stored(
    _ result: Result<StoredBody, CacheError>, _ fetch: inout Fetch, rules: Rules
  ) -> Action? {
    guard case .checked(let plan, _) = fetch.state else { return nil }
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
  }
}
