import FoundationEssentials

/// One URL on its way through the pipeline: what was asked, and where it stands. A batch's
/// ``LookupMachine`` (docs/architecture.md, The lookup machine) moves its fetches through the
/// lookup stages, then ``FetchMachine`` does; a fetch is finished once it is
/// ``State/done(_:)`` with no variant left to make. Everything a later step needs travels in
/// the fetch itself.
struct Fetch: Sendable {
  /// The URL as given (what a refusal of an unparsable URL prints, redacted).
  let given: String
  /// The URL taken apart; nil when it is not a URL the pipeline fetches.
  let request: RequestURL?
  /// The cache key ("" when the URL was refused before it got one).
  let key: String
  /// Where the fetch stands.
  var state: State
  /// Bytes received for it from the origin.
  var bytes: Int64 = 0
  /// The download in flight this fetch leads, once it leads one: it hands its result to the
  /// flight's followers when it is done.
  var flight: FlightKey?
  /// The key's lock between processes, while this fetch holds it.
  var lock: KeyLock?
  /// The variant asked for, while it is still to be served: once the original is done, the
  /// fetch's variant states make (or find) it (docs/architecture.md, The transition function).
  var variant: VariantSpec?
  /// The variant served, for the result.
  var served: VariantInfo?
  /// What the URL's table row says of it (its digest is checked; the rest goes with the
  /// result).
  var notes: RowNotes?
  /// Whether the row's digest was checked against the original's body (then not again).
  var digestChecked = false

  /// Whether the original's body is still to be checked against the row's digest.
  var needsDigestCheck: Bool { !digestChecked && notes?.digest != nil }

  /// The states of a fetch, in the order it usually moves through them.
  enum State: Sendable {
    /// Checked and keyed: to be looked up.
    case lookup
    /// No local tier has it (or none was asked: `--reload`, `--refresh`): the remote tier or
    /// the origin may.
    case missing
    /// A stored copy, stale: the origin is asked with its validators.
    case stale(CacheEntry)
    /// To download (or download again: a resume the server refused restarts from here).
    case download(Plan)
    /// Another process holds the key's lock: waits for it, then serves what it stored.
    case waiting(Plan)
    /// Its transfer is in the downloader under `ticket`.
    case transferring(Plan, ticket: UInt64)
    /// Another fetch of this process downloads the same request: waits for its result.
    case following(FlightKey)
    /// The transfer failed, or the origin answered 304: being weighed. (Boxed, as `checked`: a
    /// fetch is copied at every stage, and these two payloads made it 696 bytes.)
    indirect case received(Plan, Result<DownloadResponse, CacheError>)
    /// The origin sent a body: being checked (always at once, by the owner that took the
    /// response); `storable` says whether the origin lets it be stored.
    indirect case checking(Plan, storable: Bool)
    /// A body that passed its checks, to store.
    indirect case checked(Plan, PendingStore)
    /// Stored: to be written back to the remote tier.
    case stored(FetchOutcome)
    /// The original done, its lock swapped for the variant's: the variant is looked for (made
    /// meanwhile by another process), else derived.
    indirect case deriving(FetchMachine.Derivation)
    /// The variant made: to store under its own key, linked to its original.
    indirect case storingVariant(FetchMachine.Derivation, DerivedVariant)
    /// The variant stored: to be written back with its original named (`source`).
    indirect case variantStored(FetchOutcome, source: VariantSource?)
    /// Finished, with its outcome.
    case done(Result<FetchOutcome, CacheError>)
  }

  /// How a fetch downloads.
  struct Plan: Sendable {
    /// The stored entry whose validators make the request conditional (revalidation,
    /// `--refresh`); nil for a plain download.
    var validators: CacheEntry?
    /// Its place in the start order (numbered as lookups ask for downloads, in input order).
    var sequence: UInt64
    /// The fingerprint of the request's outcome-changing options (failure records).
    var fingerprint: String
    /// The key's file in `data/` (``CacheLayout/relativeFile(for:)``), made once.
    var file: String
    /// Whether the fetch may still take the key's lock (a plain miss not yet tried).
    var takesLock: Bool
    /// Whether this attempt already restarted a resume the server refused (never twice).
    var restarted = false
    /// Whether kept partial bodies were already given up for this download's room (once).
    var madeRoom = false
    /// What robots.txt still has to say before the request goes out (`--robots`).
    var robots = RobotsStep.ignored
  }

  /// Where a download stands with robots.txt.
  enum RobotsStep: Sendable, Equatable {
    /// Not obeyed (`robots = ignore`).
    case ignored
    /// To ask before the request goes out.
    case toConsult
    /// Allowed; its response's `X-Robots-Tag` is still obeyed.
    case cleared
  }

  /// A fetch for `url` under `options`: ``State/lookup``, or done with the reason it is refused.
  init(_ url: String, options: FetchOptions, notes: RowNotes? = nil) {
    given = url
    self.notes = notes
    do {
      let request = try RequestURL(url)
      if let given = options.explicitKey, given.contains(VariantSpec.keySeparator) {
        // A key with the separator would be a variant's: no original may pose as one.
        throw CacheError(
          .invalidInput,
          "the key '\(given)' contains '\(VariantSpec.keySeparator)', which only variants' keys may"
        )
      }
      self.request = request
      key = options.key(for: request.stripped)
      state = .lookup
    } catch {
      request = nil
      key = ""
      state = .done(.failure(CacheError.io("bad URL", error)))
    }
  }

  /// A fetch that looks `key` up for `url` without checking the URL (`query` asks for any text).
  init(looking key: String, for url: String) {
    (given, request, self.key, state) = (url, nil, key, .lookup)
  }

  /// The URL as printed: its userinfo as `***`.
  var display: String { request?.display ?? RequestURL.redacted(given) }

  /// Whether it is done, its variant (if one was asked for) and its row's digest check
  /// included.
  var isFinished: Bool {
    guard case .done(let outcome) = state, variant == nil else { return false }
    if case .success = outcome { return !needsDigestCheck }
    return true
  }

  /// Whether its original is done (a variant may still be to derive).
  var isDone: Bool {
    if case .done = state { return true }
    return false
  }

  /// The result of a finished fetch (a fetch still open reports that it was not finished).
  var result: FetchResult {
    guard case .done(let outcome) = state else {
      return FetchResult(
        url: display, key: key,
        outcome: .failure(CacheError(.cancelled, "not finished", url: display)), bytes: bytes)
    }
    // Printed with the userinfo as ***; stored and keyed without it.
    let shown = outcome.mapError { error in
      var error = error
      error.url = display
      return error
    }
    return FetchResult(
      url: display, key: served?.key ?? key, outcome: shown, bytes: bytes, variant: served,
      notes: notes)
  }
}
