import FoundationEssentials

/// The stages: what each asks when entered, and what each answer decides.
extension LookupMachine {
  /// Enters `stage`: queues what it asks (nothing, when it has nothing to ask) and names the
  /// stage after it.
  mutating func enter(_ stage: Stage) {
    self.stage = Stage(rawValue: stage.rawValue + 1) ?? .finished
    switch stage {
    case .variants: enterVariants()
    case .index:
      looking = asked
      guard asksLocal else { return }
      let keys = looking.map { fetches[$0].key }.distinct()
      if !keys.isEmpty { enqueue(.readIndex(keys)) }
    case .refusals:
      // None when the index's read says no failure is recorded.
      guard rules.refusesFailed, read?.failuresRecorded != false else { return }
      let requests = looking.compactMap { fetches[$0].request }
      if !requests.isEmpty { enqueue(.readFailures(requests)) }
    case .local: enterLocal()
    case .remote:
      guard rules.asksRemote else { return }
      var urlsByKey = [String: String]()
      for fetch in fetches where fetch.isMissing {
        if let request = fetch.request { urlsByKey[fetch.key] = request.stripped }
      }
      if !urlsByKey.isEmpty { enqueue(.askRemote(urlsByKey)) }
    case .validators:
      tally.countMisses(of: fetches)
      guard rules.mode == .refresh else { return }
      let keys = fetches.filter(\.isMissing).map(\.key)
      if !keys.isEmpty { enqueue(.readValidators(keys)) }
    case .note: if !tally.counts.isEmpty { enqueue(.note(tally.counts)) }
    case .plan: enterPlan()
    case .forget:
      guard rules.forgetsServed else { return }
      let served = fetches.compactMap { fetch -> String? in
        guard case .done(.success(.hit)) = fetch.state else { return nil }
        return fetch.request?.stripped
      }
      if !served.isEmpty { enqueue(.forget(served)) }
    case .finished: break
    }
  }

  /// A fetch that asks for a variant looks up the variant's own key first: a stored variant
  /// made from the original's current body is served, and the original is not looked up.
  private mutating func enterVariants() {
    guard let spec = rules.variant else { return }
    let asked = asked
    for index in asked { fetches[index].variant = spec }
    // `--reload` and `--refresh` ask the origin for the original; `derive` still serves a
    // variant that is current after a 304.
    guard asksLocal, !asked.isEmpty else { return }
    let suffix = VariantSpec.keySeparator + spec.canonical
    for index in asked { variantKeys[fetches[index].key + suffix] = index }
    enqueue(.findVariants(Array(variantKeys.keys)))
  }

  /// The local tiers (the cache, then read-only directories), one lookup per tier; `--reload`
  /// and `--refresh` ask none. The cache's rows come from the index's read, when it was made.
  private mutating func enterLocal() {
    let asked = looking
    guard asksLocal else {
      for index in asked { fetches[index].state = .missing }
      return
    }
    guard !asked.isEmpty else { return }
    let keys = read?.keys ?? asked.map { fetches[$0].key }.distinct()
    // The lookups noted before the tiers are asked: the write that records the hits' uses
    // then adds them too, so `stats` never shows more hits than lookups.
    enqueue(.readTiers(keys, read: read, lookups: rules.touch ? Int64(keys.count) : nil))
  }

  /// What is left is downloaded (offline, it is a miss); a plain miss under `mode = normal`
  /// takes the key's lock between processes first. Its places come with ``numbered``.
  private mutating func enterPlan() {
    for index in fetches.indices {
      let validators: CacheEntry?
      switch fetches[index].state {
      case .missing: validators = nil
      case .stale(let entry): validators = entry
      default: continue
      }
      guard rules.mode != .offline, fetches[index].request != nil else {
        fetches[index].state = .done(.success(.offlineMiss))
        continue
      }
      planned.append((index, validators))
    }
    guard !planned.isEmpty else { return }
    enqueue(.number(planned.count, fingerprinting: planned.map { fetches[$0.index].request }))
  }

  /// Event: the places of the planned downloads in the start order (consecutive from
  /// `first`), and their requests' fingerprints.
  mutating func numbered(first: UInt64, fingerprints: [String]) {
    for (offset, (index, validators)) in planned.enumerated() {
      fetches[index].state = .download(
        Fetch.Plan(
          validators: validators, sequence: first + UInt64(offset),
          fingerprint: fingerprints[offset],
          file: CacheLayout.relativeFile(for: fetches[index].key),
          takesLock: rules.mode == .normal && validators == nil,
          robots: rules.obeysRobots ? .toConsult : .ignored))
    }
    planned = []
  }
}
