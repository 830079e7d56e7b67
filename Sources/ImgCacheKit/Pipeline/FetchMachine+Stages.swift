import FoundationEssentials

/// The transitions inside a stage: a response taken apart, a failure weighed, a checked body,
/// and the variant's states (docs/architecture.md, The transition function).
extension FetchMachine {
  /// What a response calls for: a failure's partial body settled first when the fetch holds
  /// the key's lock (only it writes one); a 304 updates the entry; a body is checked.
  static func received(
    _ fetch: inout Fetch, plan: Fetch.Plan, response: Result<DownloadResponse, CacheError>,
    rules: Rules
  ) -> Action {
    switch response {
    case .failure(let error):
      fetch.state = .received(plan, response)
      guard fetch.lock == nil else { return .settlePartial(error) }
      return failed(&fetch, plan: plan, error: error, fate: nil, rules: rules)
    case .success(let answer):
      guard answer.status != 304 else {
        fetch.state = .received(plan, response)
        return .revalidate(answer)
      }
      fetch.bytes = answer.bytes
      guard fetch.request != nil else {
        fetch.state = .done(.failure(CacheError(.invalidInput, "not a URL to download")))
        return .settle
      }
      // Whether the origin lets it be stored is read now: the response is not kept.
      let storable =
        !rules.httpFreshness
        || CacheDirectives(answer.freshness.cacheControl).allowsStoring(
          status: answer.freshness.status ?? answer.status)
      fetch.state = .checking(plan, storable: storable)
      return .check(answer, file: plan.file)
    }
  }

  /// A failed transfer: a resume the server refused starts over (once); a full disk gives up
  /// the other kept partial bodies and tries once more; a conditional request may fall back
  /// on its stale copy; else the failure is counted (and recorded when permanent).
  static func failed(
    _ fetch: inout Fetch, plan: Fetch.Plan, error: CacheError, fate: Fetcher.PartialFate?,
    rules: Rules
  ) -> Action {
    var again = plan
    if fate == .restart && !plan.restarted {
      again.restarted = true
      fetch.state = .download(again)
      return next(&fetch, rules: rules)
    }
    if error.isNoSpace && !plan.madeRoom {
      again.madeRoom = true
      fetch.state = .download(again)
      return .makeRoom
    }
    if let validators = plan.validators { return .serveStale(validators, error) }
    fetch.state = .done(.failure(error))
    return .noteFailure(error, recordingUnder: recorded(error, plan: plan, fetch: fetch))
  }

  /// The fingerprint a failure is recorded under: a permanent failure of a URL's request.
  static func recorded(_ error: CacheError, plan: Fetch.Plan, fetch: Fetch) -> String? {
    error.isPermanent && fetch.request != nil ? plan.fingerprint : nil
  }

  /// A checked body: stored, unless the origin forbids it (`freshness = http`), when it is
  /// handed over unstored.
  static func checkedBody(
    _ fetch: inout Fetch, plan: Fetch.Plan, storable: Bool,
    checked: Result<PendingStore, CacheError>,
    rules: Rules
  ) -> Action {
    switch checked {
    case .failure(let error):
      fetch.state = .done(.failure(error))
      return .noteFailure(error, recordingUnder: recorded(error, plan: plan, fetch: fetch))
    case .success(let pending):
      guard storable else {
        fetch.state = .done(.success(.notStored(body: pending.temporaryPath)))
        return .count(.notStored)
      }
      fetch.state = .checked(plan, pending)
      return next(&fetch, rules: rules)
    }
  }

  /// The variant's events, and any event its state does not expect (a fault of the owner: the
  /// fetch fails rather than hang).
  static func variantEvent(_ event: Event, for fetch: inout Fetch, rules: Rules) -> Action {
    switch (fetch.state, event) {
    case (.done(.success(let original)), .variantLocked(let lock)) where fetch.variant != nil:
      guard let spec = fetch.variant, let path = original.path ?? original.uncachedBody else {
        break
      }
      (fetch.lock, fetch.variant) = (lock, nil)
      fetch.state = .deriving(
        Derivation(
          spec: spec, key: spec.derivedKey(for: fetch.key), path: path,
          source: original.storedEntry, uncachedBody: original.uncachedBody))
      return next(&fetch, rules: rules)
    case (.deriving(let derivation), .variantFound(let found)):
      // Another fetch or process made it meanwhile: served as it is.
      guard let found, case .local(let entry, _) = found else { return .derive(derivation) }
      fetch.serve(found, variant: entry, spec: derivation.spec.canonical)
      return next(&fetch, rules: rules)
    case (.deriving, .derived(.failure(let error))):
      fetch.state = .done(.failure(error))
      return error.kind == .cancelled ? next(&fetch, rules: rules) : .count(.derivationFailures)
    case (.deriving(let derivation), .derived(.success(let made))):
      guard let body = derivation.uncachedBody else {
        fetch.state = .storingVariant(derivation, made)
        return next(&fetch, rules: rules)
      }
      // An original the origin said not to store: its variant is handed over, not stored.
      fetch.state = .done(.success(.notStored(body: made.path)))
      fetch.served = VariantInfo(made, spec: derivation.spec, original: fetch.key)
      return .handOver(original: body)
    case (.storingVariant, .stored(.failure(let error))):
      fetch.state = .done(.failure(error))
      return next(&fetch, rules: rules)
    case (.storingVariant(let derivation, _), .stored(.success(let body))):
      fetch.served = VariantInfo(body.entry, spec: derivation.spec.canonical, original: fetch.key)
      let outcome = FetchOutcome.derived(body.entry, path: body.path)
      // Written back with the original it was made from, so that other machines check it.
      fetch.state =
        rules.writesBack
        ? .variantStored(outcome, source: derivation.source.flatMap(VariantSource.init(original:)))
        : .done(.success(outcome))
      return next(&fetch, rules: rules)
    default: break
    }
    fetch.state = .done(
      .failure(CacheError(.localIO, "internal error: \(event.name) in state \(fetch.state.name)")))
    return .settle
  }
}
