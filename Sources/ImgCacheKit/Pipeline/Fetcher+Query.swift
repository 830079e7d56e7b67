import FoundationEssentials

/// What `query` says of one URL: its key, where it is cached (if it is), and the latest
/// failure recorded for it within the failed-request TTL.
public struct QueryAnswer: Sendable {
  /// The URL as given, its userinfo as `***`.
  public var url: String
  /// Its cache key.
  public var key: String
  /// The cached copy, if any.
  public var hit: CacheHit?
  /// The latest failure of any request of the URL within the TTL, if any.
  public var failure: FailedURL?
}

extension Fetcher {
  /// Looks `urls` (or their `variant`) up in every tier in one batch (a use of each hit only
  /// when `touch`), with their failure records: `query`'s engine. Throws when the local index cannot be read.
  public func query(
    _ urls: [String], keyFilter: KeyFilter, failedTTL: TimeInterval, touch: Bool,
    variant: VariantSpec? = nil
  ) async throws -> [QueryAnswer] {
    let question = QueryQuestion(
      urls: urls, keyFilter: keyFilter, failedTTL: failedTTL, touch: touch, variant: variant)
    return try await query(continuing: begin(question), question)
  }

  /// ``query(_:keyFilter:failedTTL:touch:variant:)``'s question.
  public struct QueryQuestion: Sendable {
    var urls: [String]
    var keyFilter: KeyFilter
    var failedTTL: TimeInterval
    var touch: Bool
    var variant: VariantSpec?

    /// The question of `urls` (or their `variant`), a use of each hit only when `touch`.
    public init(
      urls: [String], keyFilter: KeyFilter, failedTTL: TimeInterval, touch: Bool,
      variant: VariantSpec?
    ) {
      (self.urls, self.keyFilter, self.failedTTL) = (urls, keyFilter, failedTTL)
      (self.touch, self.variant) = (touch, variant)
    }

    /// The options of its lookup: the local tiers only, as `--offline`.
    var options: FetchOptions {
      var options = FetchOptions()
      (options.mode, options.touch) = (.offline, touch)
      return options
    }
  }

  /// How far ``begin(_:)-(QueryQuestion)`` took a query on the calling thread.
  public struct QueryStart: Sendable {
    /// The answers, when the local tiers gave them all.
    public let answers: Result<[QueryAnswer], any Error>?
    fileprivate let machine: LookupMachine
    fileprivate let pending: LookupMachine.Action?
  }

  /// Starts `question` on the calling thread, with no task: a query of the local cache alone
  /// is answered here; one with `--ro-dir` goes on in ``query(continuing:_:)``.
  public func begin(_ question: QueryQuestion) -> QueryStart {
    // With a variant, the variant's own key: `query` answers for what `fetch` would serve.
    let fetches = question.urls.map { url in
      let key = CacheKey.key(for: url, filter: question.keyFilter)
      return Fetch(looking: question.variant?.derivedKey(for: key) ?? key, for: url)
    }
    var rules = lookupRules(question.options)
    rules.refusesFailed = false
    var machine = LookupMachine(fetches, rules: rules)
    switch lookUpAtOnce(&machine, options: question.options) {
    case .waiting(let action): return QueryStart(answers: nil, machine: machine, pending: action)
    case .finished(let fetches):
      let answers = Result { try answer(question, fetches, machine) }
      return QueryStart(answers: answers, machine: machine, pending: nil)
    }
  }

  /// Finishes the query `start` began, on the engine's executor.
  public func query(continuing start: QueryStart, _ question: QueryQuestion) async throws
    -> [QueryAnswer]
  {
    if let answers = start.answers { return try answers.get() }
    return try await withTaskExecutorPreference(EngineExecutor.shared) {
      var machine = start.machine
      let fetches = await perform(&machine, options: question.options, from: start.pending)
      return try answer(question, fetches, machine)
    }
  }

  /// The answers of looked-up `fetches`, with their failure records.
  private func answer(_ question: QueryQuestion, _ fetches: [Fetch], _ machine: LookupMachine)
    throws -> [QueryAnswer]
  {
    if let error = machine.error { throw error }
    let plain = question.urls.map { CacheKey.withoutUserinfo($0) }
    let records =
      machine.read?.failuresRecorded == false
      ? [:]
      : try cache.index.failures(
        urls: plain, after: cache.now().addingTimeInterval(-question.failedTTL))
    return zip(fetches, plain).map { fetch, url in
      var hit: CacheHit?
      if case .done(.success(.hit(let found))) = fetch.state { hit = found }
      return QueryAnswer(
        url: CacheKey.redacted(fetch.given), key: fetch.key, hit: hit,
        failure: records[url]?.max { $0.lastFailure < $1.lastFailure })
    }
  }
}

extension Fetcher {
  /// `results` with the uses the use journal holds of their hits' entries folded in
  /// (``DiskCache/foldingJournal(_:)``): for records that show an entry's uses.
  public func foldingJournal(_ results: [FetchResult]) -> [FetchResult] {
    let hits = results.map { result -> CacheHit? in
      guard case .success(.hit(let hit)) = result.outcome else { return nil }
      return hit
    }
    return zip(results, cache.foldingJournal(hits)).map { result, hit in
      guard let hit else { return result }
      var folded = result
      folded.outcome = .success(.hit(hit))
      return folded
    }
  }

  /// `answers` with the uses the use journal holds of their hits' entries folded in.
  public func foldingJournal(_ answers: [QueryAnswer]) -> [QueryAnswer] {
    zip(answers, cache.foldingJournal(answers.map(\.hit))).map { answer, hit in
      var folded = answer
      folded.hit = hit
      return folded
    }
  }
}
