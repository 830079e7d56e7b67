import FoundationEssentials

/// The prefetch loop's decisions as a value (docs/architecture.md, The prefetch loop): what to
/// read, look up, start, store, send and wait for, and when the run is over. It performs no I/O
/// and reads no clock: its owner (``Prefetcher``) asks for the next ``Action`` with the
/// ``Facts`` of the moment, performs it, and feeds what came of it back as an event (one
/// function each: ``inputRead(_:waited:)``, ``lookedUp(_:)``, ``submitted(_:)``,
/// ``settled(_:)``, ``advanced(_:)``, ``arrived(_:now:)``). Actions that need no answer (spawn,
/// store, discard, send) are followed at once by the next.
///
/// Each fetch's own way is ``FetchMachine``'s; this machine decides only where a fetch waits
/// (a transfer, a task of its own, the next store) and when it ends. The window and the hosts'
/// shares are ``PrefetchScheduler``'s, the counts ``RunState``'s, both held here.
struct PrefetchMachine {
  /// What the owner reads before each step.
  struct Facts {
    /// The monotonic time (store batches wait for a delay).
    var now: ContinuousClock.Instant
    /// Whether the run was cancelled (read and transfers stop; what is left is unfinished).
    var cancelled: Bool
    /// Transfers the transport holds back for their hosts (``PrefetchScheduler/heldBack``).
    var heldBack: Int
  }

  /// How a read of the input waits for its first item.
  enum ReadWait: Equatable {
    /// Not at all: what is there.
    case none
    /// Until a line comes or the input ends: nothing else is in flight.
    case block
    /// Until a line comes or something arrives in the inbox (its wake signal), unless
    /// something already has: work is in flight.
    case untilArrival
  }

  /// A transfer's response, with the fetch that waited for it.
  struct Response {
    var fetch: Fetch
    var result: Result<DownloadResponse, CacheError>
  }

  /// What the owner does next.
  enum Action {
    /// Reads up to this many items of the input; then ``inputRead(_:waited:)``.
    case read(upTo: Int, wait: ReadWait)
    /// Looks these URLs up, in input order; then ``lookedUp(_:)``.
    case lookUp([ListedURL])
    /// Starts these fetches' transfers, into the inbox; then ``submitted(_:)``.
    case submit([Fetch])
    /// Settles these done fetches (locks, flights); then ``settled(_:)`` with their results.
    case settle([Fetch])
    /// Moves the fetch on in a task of its own from `action`; its result arrives in the inbox.
    case spawn(Fetch, FetchMachine.Action)
    /// Stores these checked bodies in one transaction, in a task; they arrive in the inbox.
    case store([Fetch])
    /// Feeds each response to its fetch; then ``advanced(_:)`` with the action each waits for.
    case advance([Response])
    /// Deletes a body no one keeps.
    case discard(String)
    /// Sends these events to the run's reader (waits while it is behind).
    case send([PrefetchEvent])
    /// Takes what arrived in the inbox: at once, or waiting for something (until `deadline`,
    /// when there is one); then ``arrived(_:now:)``.
    case take(wait: Bool, deadline: ContinuousClock.Instant?)
    /// The run is over: nothing is in flight, parked or unsent.
    case finish
  }

  /// Where the loop stands once the queued actions are done: the step to take next.
  indirect enum Step {
    /// A turn of the input loop begins: take what arrived.
    case top
    /// Start storing what waits, and the parked fetches whose hosts have room.
    case parked
    /// Read the next batch of input.
    case read
    /// The batch is read: look it up, wait for arrivals, or drain.
    case readEnded
    /// Admit the looked-up batch's open fetches into the window.
    case admit
    /// The input is over: start what is parked, wait for what is in flight.
    case drain
    /// Wait for what is in flight, when anything is.
    case drainWait
    /// Send the events collected, then go on.
    case flush(then: Step)
    /// Take what arrived (`wait`: waiting for something), then go on.
    case take(wait: Bool, then: Step)
    /// Over.
    case finished
  }

  /// Where a take of the inbox stands.
  enum Taking {
    /// A take that does not wait.
    case now(then: Step)
    /// A look before a wait: an empty answer starts a store that is due, then waits.
    case probe(then: Step)
    /// A wait.
    case waiting(then: Step)
  }

  var scheduler: PrefetchScheduler
  var run: RunState
  let rules: FetchMachine.Rules
  let batchSize: Int
  /// Whether the inbox can end a read's wait (its ``WakeSignal`` exists).
  let canWake: Bool
  var step = Step.top
  var taking: Taking?
  var cancelled = false
  /// The time of the current step.
  var now: ContinuousClock.Instant
  /// Actions decided and not yet given out, in order.
  var queue = ActionQueue<Action>()
  /// Events recorded and not yet sent.
  var outbox = [PrefetchEvent]()
  /// Done fetches to settle in the next ``Action/settle(_:)``.
  var settling = [Fetch]()
  /// The batch being read, and how its reads wait.
  var batch = [ListedURL]()
  var busyWhileReading = false
  var lastRead = (wanted: 0, wait: ReadWait.none)
  /// Whether the batch's last read that was to wait could (``inputRead(_:waited:)``).
  var mayWait = false
  /// The looked-up batch's fetches still to admit.
  var admitting = ArraySlice<Fetch>()

  /// A machine for a run over `transfers` downloader slots, starting `now`.
  init(
    run: RunState, rules: FetchMachine.Rules, transfers: Int, batchSize: Int, canWake: Bool,
    now: ContinuousClock.Instant
  ) {
    self.run = run
    self.rules = rules
    self.batchSize = batchSize
    self.canWake = canWake
    self.now = now
    scheduler = PrefetchScheduler(transfers: transfers, now: now)
  }

  /// The next action, given the facts of the moment.
  mutating func next(_ facts: Facts) -> Action {
    now = facts.now
    cancelled = cancelled || facts.cancelled
    scheduler.heldBack = facts.heldBack
    while true {
      if let action = queue.next() { return action }
      if case .finished = step { return .finish }
      enter(step)
    }
  }

  mutating func enqueue(_ action: Action) { queue.append(action) }

  /// Queues the settling of the fetches handed over as done.
  mutating func queueSettles() {
    guard !settling.isEmpty else { return }
    enqueue(.settle(settling))
    settling = []
  }
}
