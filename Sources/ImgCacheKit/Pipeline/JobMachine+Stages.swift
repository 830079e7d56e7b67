import Foundation

/// The transitions inside a stage: a response taken apart, a failure weighed, a checked body,
/// and the variant's states (docs/architecture.md, The transition function).
extension JobMachine {
  /// What a response calls for: a failure's partial body settled first when the job holds
  /// the key's lock (only it writes one); a 304 updates the entry; a body is checked.
  static func received(
    _ job: inout Job, plan: Job.Plan, response: Result<DownloadResponse, CacheError>,
    rules: Rules
  ) -> Action {
    switch response {
    case .failure(let error):
      job.state = .received(plan, response)
      guard job.lock == nil else { return .settlePartial(error) }
      return failed(&job, plan: plan, error: error, fate: nil, rules: rules)
    case .success(let answer):
      guard answer.status != 304 else {
        job.state = .received(plan, response)
        return .revalidate(answer)
      }
      job.bytes = answer.bytes
      guard job.request != nil else {
        job.state = .done(.failure(CacheError(.invalidInput, "not a URL to download")))
        return .settle
      }
      // Whether the origin lets it be stored is read now: the response is not kept.
      let storable =
        !rules.httpFreshness
        || CacheDirectives(answer.freshness.cacheControl).allowsStoring(
          status: answer.freshness.status ?? answer.status)
      job.state = .checking(plan, storable: storable)
      return .check(answer, file: plan.file)
    }
  }

  /// A failed transfer: a resume the server refused starts over (once); a full disk gives up
  /// the other kept partial bodies and tries once more; a conditional request may fall back
  /// on its stale copy; else the failure is counted (and recorded when permanent).
  static func failed(
    _ job: inout Job, plan: Job.Plan, error: CacheError, fate: Fetcher.PartialFate?,
    rules: Rules
  ) -> Action {
    var again = plan
    if fate == .restart && !plan.restarted {
      again.restarted = true
      job.state = .download(again)
      return next(&job, rules: rules)
    }
    if error.isNoSpace && !plan.madeRoom {
      again.madeRoom = true
      job.state = .download(again)
      return .makeRoom
    }
    if let validators = plan.validators { return .serveStale(validators, error) }
    job.state = .done(.failure(error))
    return .noteFailure(error, recordingUnder: recorded(error, plan: plan, job: job))
  }

  /// The fingerprint a failure is recorded under: a permanent failure of a URL's request.
  static func recorded(_ error: CacheError, plan: Job.Plan, job: Job) -> String? {
    error.isPermanent && job.request != nil ? plan.fingerprint : nil
  }

  /// A checked body: stored, unless the origin forbids it (`freshness = http`), when it is
  /// handed over unstored.
  static func checkedBody(
    _ job: inout Job, plan: Job.Plan, storable: Bool, checked: Result<PendingStore, CacheError>,
    rules: Rules
  ) -> Action {
    switch checked {
    case .failure(let error):
      job.state = .done(.failure(error))
      return .noteFailure(error, recordingUnder: recorded(error, plan: plan, job: job))
    case .success(let pending):
      guard storable else {
        job.state = .done(.success(.notStored(body: pending.temporaryPath)))
        return .count(.notStored)
      }
      job.state = .checked(plan, pending)
      return next(&job, rules: rules)
    }
  }

  /// The variant's events, and any event its state does not expect (a fault of the owner: the
  /// job fails rather than hang).
  static func variantEvent(_ event: Event, for job: inout Job, rules: Rules) -> Action {
    switch (job.state, event) {
    case (.done(.success(let original)), .variantLocked(let lock)) where job.variant != nil:
      guard let spec = job.variant, let path = original.path ?? original.uncachedBody else {
        break
      }
      (job.lock, job.variant) = (lock, nil)
      job.state = .deriving(
        Derivation(
          spec: spec, key: spec.derivedKey(for: job.key), path: path,
          source: original.storedEntry, uncachedBody: original.uncachedBody))
      return next(&job, rules: rules)
    case (.deriving(let derivation), .variantFound(let found)):
      // Another job or process made it meanwhile: served as it is.
      guard let found, case .local(let entry, _) = found else { return .derive(derivation) }
      job.serve(found, variant: entry, spec: derivation.spec.canonical)
      return next(&job, rules: rules)
    case (.deriving, .derived(.failure(let error))):
      job.state = .done(.failure(error))
      return error.kind == .cancelled ? next(&job, rules: rules) : .count(.derivationFailures)
    case (.deriving(let derivation), .derived(.success(let made))):
      guard let body = derivation.uncachedBody else {
        job.state = .storingVariant(derivation, made)
        return next(&job, rules: rules)
      }
      // An original the origin said not to store: its variant is handed over, not stored.
      job.state = .done(.success(.notStored(body: made.path)))
      job.served = VariantInfo(made, spec: derivation.spec, original: job.key)
      return .handOver(original: body)
    case (.storingVariant, .stored(.failure(let error))):
      job.state = .done(.failure(error))
      return next(&job, rules: rules)
    case (.storingVariant(let derivation, _), .stored(.success(let body))):
      job.served = VariantInfo(body.entry, spec: derivation.spec.canonical, original: job.key)
      let outcome = FetchOutcome.derived(body.entry, path: body.path)
      // Written back with the original it was made from, so that other machines check it.
      job.state =
        rules.writesBack
        ? .variantStored(outcome, source: derivation.source.flatMap(VariantSource.init(original:)))
        : .done(.success(outcome))
      return next(&job, rules: rules)
    default: break
    }
    job.state = .done(
      .failure(CacheError(.localIO, "internal error: \(event.name) in state \(job.state.name)")))
    return .settle
  }
}
