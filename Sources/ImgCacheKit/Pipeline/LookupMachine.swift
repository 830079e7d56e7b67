import FoundationEssentials

/// The lookup stages' decisions over one batch of fetches, as a value (docs/architecture.md,
/// The lookup machine): which tier is asked for which keys, what each answer makes of each
/// fetch (a hit, a stale copy to revalidate, a refusal, a miss to download), what is counted,
/// and the download plans. It reads nothing and writes nothing: its owner
/// (``Fetcher/lookUp(_:options:)``) performs each ``Action`` and feeds back what came of it
/// (one function an event), and the fetches it finishes with are each at the state
/// ``FetchMachine`` takes them in. Stages run in the lookup order of docs/design.md (Cache
/// semantics); each takes the fetches in the state it handles and leaves the others as they are.
struct LookupMachine: Sendable {
  /// The facts of the batch the stages decide on.
  struct Rules {
    var mode = FetchOptions.Mode.normal
    /// Whether a URL whose request failed recently is refused (not with `--retry-failed`).
    var refusesFailed = true
    /// Whether a URL served from a tier leaves the failed list (`--retry-failed`).
    var forgetsServed = false
    /// Whether the local tiers' answers are uses (and counted); else an inspection.
    var touch = true
    /// Whether the remote tier is asked (there is one, it is used, the mode allows it).
    var asksRemote = false
    /// The variant every fetch asks for.
    var variant: VariantSpec?
    var failedTTL = DiskCache.defaultFailedTTL
    /// Whether a download consults robots.txt first (`--robots`).
    var obeysRobots = false
    var freshness = FreshnessPolicy()
    /// The time stored entries are judged fresh at.
    var now = Date()
    /// The last stage taken (a part of a batch looked up beside the others stops before the
    /// plans: the whole batch is planned at once, in input order).
    var lastStage = Stage.forget
  }

  /// What the owner does next.
  enum Action {
    /// The current stored variants of these keys → ``variantsFound(_:)``.
    case findVariants([String])
    /// The remote tier's copies of these variants (key → the original's URL), each checked to
    /// be this spec's → ``remoteVariantsFound(_:sources:)``.
    case askRemoteVariants(VariantSpec, urls: [String: String])
    /// Record these remote variants' links to their originals, then read which are out of date
    /// → ``variantsLinked(_:)``.
    case linkVariants([VariantLink])
    /// One read of the index for these keys → ``indexRead(_:)``.
    case readIndex([String])
    /// The recent failures recorded for these requests → ``failuresRead(_:)``.
    case readFailures([RequestURL])
    /// Note the batch's tally.
    case note([Counter: Int64])
    /// Note `lookups` lookups when given (a use: before the tiers are asked, so the write that
    /// records the hits' uses adds them too), then the local tiers' hits for these keys (the
    /// cache's from `read`, when made) → ``tiersRead(_:readOnlyBytes:)``.
    case readTiers([String], read: IndexLookup?, lookups: Int64?)
    /// The remote tier's copies of these keys (key → URL) → ``remoteRead(_:)``.
    case askRemote([String: String])
    /// The stored entries of these keys, for their validators (`--refresh`) →
    /// ``validatorsRead(_:)``.
    case readValidators([String])
    /// This many consecutive places in the start order, and the fingerprints of these requests
    /// (the planned downloads', in order) → ``numbered(first:fingerprints:)``.
    case number(Int, fingerprinting: [RequestURL?])
    /// These URLs, served from a tier, leave the failed list (`--retry-failed`).
    case forget([String])
    /// The batch is looked up.
    case finish([Fetch])
  }

  /// The stages, in order.
  enum Stage: Int, Comparable {
    case variants, index, refusals, local, remote, validators, note, plan, forget, finished
    static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// The batch, in input order.
  var fetches: [Fetch]
  let rules: Rules
  /// The stage to enter once the pending action is answered.
  var stage = Stage.variants
  var tally = LookupTally()
  /// The index's read, once made: its rows, and whether any failure is recorded.
  var read: IndexLookup?
  /// The read that failed the batch, if one did.
  var error: (any Error)?
  /// The action the current stage asks (each asks one at most).
  var pending: Action?
  /// The fetches still at ``Fetch/State/lookup`` from the index stage on: the refusals take
  /// theirs out, the local stage moves them all on.
  var looking = [Int]()
  /// The variants looked for, by derived key: the fetch asking.
  var variantKeys = [String: Int]()
  /// The remote tier's variants, until their links are read.
  var sharedVariants = [String: CacheHit]()
  /// The fetches planned to download, waiting for their places and fingerprints.
  var planned = [(index: Int, validators: CacheEntry?)]()

  /// A machine for `fetches` (each at ``Fetch/State/lookup``, or done: refused as given),
  /// from `stage` on (the plans of parts looked up apart start at ``Stage/plan``).
  init(_ fetches: [Fetch], rules: Rules, from stage: Stage = .variants) {
    self.fetches = fetches
    self.rules = rules
    self.stage = stage
  }

  /// The next action.
  mutating func next() -> Action {
    while true {
      if let action = pending.take() { return action }
      if stage == .finished || stage > rules.lastStage { return .finish(fetches) }
      enter(stage)
    }
  }

  /// The stage entered asks `action`.
  mutating func enqueue(_ action: Action) { pending = action }

  /// A read failed: every fetch not done fails with it, and the batch goes on to be counted
  /// and planned (what is done stays done).
  mutating func fail(_ error: any Error) {
    self.error = error
    let failure = CacheError.io("cannot read the cache", error)
    for index in fetches.indices where !fetches[index].isDone {
      fetches[index].state = .done(.failure(failure))
    }
    stage = .note
  }

  /// The indices of the fetches still to look up.
  var asked: [Int] { fetches.indices.filter { fetches[$0].isLookup } }

  /// Whether the mode asks the local tiers.
  var asksLocal: Bool { rules.mode == .normal || rules.mode == .offline }

  /// Whether `entry` must be revalidated before use.
  func isStale(_ entry: CacheEntry) -> Bool {
    rules.freshness.mode == .http && !rules.freshness.verdict(on: entry, at: rules.now).isFresh
  }
}
