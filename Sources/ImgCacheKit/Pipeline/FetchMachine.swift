import FoundationEssentials

/// The transition function of a ``Fetch`` once its lookup is over (docs/architecture.md, The
/// transition function): plain values, no I/O. The owner of a fetch (``Fetcher/drive(_:options:action:)``
/// for one fetch, the prefetch loop for a batch) asks ``next(_:rules:)`` what the fetch's state
/// calls for, performs that ``Action``, and feeds what came of it back as an ``Event`` to
/// ``handle(_:for:rules:)``, which moves the fetch and names the next action — until it is
/// ``Action/settle``. Every decision between two pieces of I/O is made here, so a test feeds
/// events and reads actions, with no server, disk or clock.
enum FetchMachine {
  /// What the machine decides on besides the fetch: facts of the run, fixed for it.
  struct Rules: Sendable, Equatable {
    /// Whether stored downloads are written back to a remote tier.
    var writesBack = false
    /// Whether the origin's `Cache-Control` decides what may be stored (`freshness = http`).
    var httpFreshness = false
    /// Whether a variant, once stored, removes its original (`--discard-original`).
    var discardsOriginal = false
  }

  /// The I/O a fetch waits for; the owner performs it and feeds back the ``Event`` named beside.
  enum Action: Sendable {
    /// Ask the host's robots.txt (`--robots`) whether the URL may be requested →
    /// ``Event/robots(_:)``.
    case consultRobots(String)
    /// Join the request's flight in this process → ``Event/joined(_:leads:)``.
    case join(FlightKey)
    /// Try the key's lock between processes and, holding it, look for what another process
    /// stored meanwhile, under the plan → ``Event/locked(_:)``.
    case lock(Fetch.Plan)
    /// Submit the transfer under the plan (a batch owner submits its fetches' together) →
    /// ``Event/submitted(ticket:)``, or ``Event/responded(_:)`` with the failure when it could
    /// not be submitted (the cache's directories could not be made).
    case submit(Fetch.Plan)
    /// Wait for the transfer's response → ``Event/responded(_:)``.
    case awaitResponse(ticket: UInt64)
    /// Wait for the leader of the flight → ``Event/followed(_:)``.
    case follow(FlightKey)
    /// Wait for the process that holds the key's lock, then download under the plan if it
    /// stored nothing → ``Event/waited(lock:served:cancelled:)``.
    case waitForProcess(Fetch.Plan)
    /// Keep, drop or restart the partial body after a failed resumable transfer →
    /// ``Event/partial(_:)``.
    case settlePartial(CacheError)
    /// Give up other kept partial bodies to make room for this one → ``Event/proceed``.
    case makeRoom
    /// Look for the stored copy allowed to stand in for the failure (stale-if-error) →
    /// ``Event/stale(_:)``.
    indirect case serveStale(CacheEntry, CacheError)
    /// Count the failure, and record it against the URL under the request's fingerprint when
    /// one is given (a permanent failure) → ``Event/proceed``.
    case noteFailure(CacheError, recordingUnder: String?)
    /// Update the stored entry after a 304 → ``Event/revalidated(_:)``.
    indirect case revalidate(DownloadResponse)
    /// Check the body (an image, its announced size, its headers' claims) into a store for
    /// `file` in `data/` → ``Event/checked(_:)``.
    indirect case check(DownloadResponse, file: String)
    /// Count `counter` once → ``Event/proceed``.
    case count(Counter)
    /// Move the checked body into `data/` (a batch owner stores its fetches' together) →
    /// ``Event/stored(_:)``.
    case store(PendingStore)
    /// Write the stored body back to the remote tier (`source`: a variant's original) →
    /// ``Event/proceed``.
    case writeBack(FetchOutcome, source: VariantSource?)
    /// Let go of the original's lock, then take the variant's (waiting for another process
    /// that derives it) → ``Event/variantLocked(_:)``.
    case lockVariant(String, releasing: KeyLock?)
    /// Look for the variant made from the original's current body → ``Event/variantFound(_:)``.
    case findVariant(String)
    /// Derive the variant within its budget → ``Event/derived(_:)``.
    indirect case derive(Derivation)
    /// Hand over a variant of an original that may not be stored, the original's body
    /// removed → ``Event/proceed``.
    case handOver(original: String)
    /// Store the variant just made, removing its original when `discardingOriginal` →
    /// ``Event/stored(_:)``.
    indirect case storeVariant(DerivedVariant, Derivation, discardingOriginal: Bool)
    /// Make the digest of the original's body (`--verify-hash`) →
    /// ``Event/digested(_:)``.
    case digest(DigestSource, HashAlgorithm)
    /// Refuse the body for the row (its digest differs, or cannot be made): delete it when it
    /// is not stored, count the failure → ``Event/proceed``.
    case refuse(body: String?, CacheError)
    /// The fetch is done: release its lock, hand its result to its flight's followers.
    case settle
  }

  /// What came of an ``Action``. (The large payloads are boxed: a response, a checked body or
  /// a result inline made every event hundreds of bytes, copied at every transition.)
  enum Event: Sendable {
    /// The effect asked for is done; nothing new to decide on.
    case proceed
    /// What the host's robots.txt says of the URL.
    case robots(RobotsAnswer)
    /// The fetch leads the flight it joined, or follows it.
    case joined(FlightKey, leads: Bool)
    /// What trying the key's lock found.
    case locked(LockAttempt)
    /// The transfer is in the downloader under `ticket`.
    case submitted(ticket: UInt64)
    /// The transfer ended.
    indirect case responded(Result<DownloadResponse, CacheError>)
    /// The leader's result.
    indirect case followed(FetchResult)
    /// The wait for the other process ended: with the lock or not, what it stored, or
    /// because the run was cancelled.
    case waited(lock: KeyLock?, served: CacheHit?, cancelled: Bool)
    /// What became of the partial body.
    case partial(Fetcher.PartialFate)
    /// The stored copy served in place of the failure, if one may be.
    indirect case stale(FetchOutcome?)
    /// The entry updated after a 304, or why not.
    indirect case revalidated(Result<FetchOutcome, CacheError>)
    /// The body checked, ready to store, or why it may not be.
    indirect case checked(Result<PendingStore, CacheError>)
    /// The body moved into `data/` with its row, at `path`, or why not.
    indirect case stored(Result<StoredBody, CacheError>)
    /// The variant's lock, if one could be taken.
    case variantLocked(KeyLock?)
    /// The current stored variant, if there is one.
    case variantFound(CacheHit?)
    /// The variant made, or why not.
    indirect case derived(Result<DerivedVariant, CacheError>)
    /// The digest of the original's body, lowercase hex; nil when it could not be read.
    case digested(String?)
  }

  /// What a host's robots.txt says of a URL.
  enum RobotsAnswer: Sendable {
    /// It may be requested.
    case allowed
    /// It may not: `.disallowed`, with the rule or the reason (or `.cancelled`).
    case refused(CacheError)
  }

  /// What trying a key's lock between processes found.
  enum LockAttempt: Sendable {
    /// This process holds it, and no other process stored the key since the lookup.
    case held(KeyLock)
    /// Another process stored the key since the lookup (the lock, taken to find out, is
    /// already let go).
    case storedMeanwhile(CacheHit)
    /// Another process holds it.
    case busy
    /// No lock can be had (an unwritable `locks/`): the download goes on alone.
    case unavailable
  }

  /// A stored body: its row, and its file.
  struct StoredBody: Sendable {
    var entry: CacheEntry
    var path: String
  }

  /// A variant to make: what from, and under which key.
  struct Derivation: Sendable {
    /// The spec asked for.
    var spec: VariantSpec
    /// The variant's key (the original's, `#`, the spec's canonical form).
    var key: String
    /// The original's body: its stored file, or the body the origin said not to store.
    var path: String
    /// The original as stored (nil when it may not be): the variant's source.
    var source: CacheEntry?
    /// The body of an original that may not be stored; its variant is handed over unstored.
    var uncachedBody: String?
  }
}

extension FetchMachine.Event {
  /// The event's name, for a message.
  var name: String {
    switch self {
    case .proceed: "proceed"
    case .robots: "robots"
    case .joined: "joined"
    case .locked: "locked"
    case .submitted: "submitted"
    case .responded: "responded"
    case .followed: "followed"
    case .waited: "waited"
    case .partial: "partial"
    case .stale: "stale"
    case .revalidated: "revalidated"
    case .checked: "checked"
    case .stored: "stored"
    case .variantLocked: "variantLocked"
    case .variantFound: "variantFound"
    case .derived: "derived"
    case .digested: "digested"
    }
  }
}

extension Fetch.State {
  /// The state's name, for a message.
  var name: String {
    switch self {
    case .lookup: "lookup"
    case .missing: "missing"
    case .stale: "stale"
    case .download: "download"
    case .waiting: "waiting"
    case .transferring: "transferring"
    case .following: "following"
    case .received: "received"
    case .checking: "checking"
    case .checked: "checked"
    case .stored: "stored"
    case .deriving: "deriving"
    case .storingVariant: "storingVariant"
    case .variantStored: "variantStored"
    case .done: "done"
    }
  }
}
