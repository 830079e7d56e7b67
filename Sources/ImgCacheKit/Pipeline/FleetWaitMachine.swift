/// A machine's wait for another machine's download of the same key (docs/fleet.md,
/// Coalescing), as a plain value with no I/O and no clock: it says what to do next — look for
/// the object in the remote tier, try the fleet's lock, wait for a timer — and its owner does
/// it and feeds back what came of it. It ends served (the object arrived), with the lock (the
/// other machine let go without storing: download here), alone (Redis did not answer: download
/// here without the fleet), past its deadline, or cancelled.
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | looking | `found` | ended | `finish(.served)` |
/// | looking | `notFound` | locking | `tryLock` |
/// | locking | `lockHeld` | ended | `finish(.lockTaken)` |
/// | locking | `lockUnavailable` | ended | `finish(.alone)` |
/// | locking | `lockBusy` (before the deadline) | sleeping | `wait(until: now + poll)` |
/// | sleeping | `timer` (before the deadline) | looking | `lookUp` |
/// | any but ended | past the deadline | ended | `finish(.timedOut)` |
/// | any but ended | `cancel` | ended | `finish(.cancelled)` |
package struct FleetWaitMachine: Sendable {
  package typealias Instant = ContinuousClock.Instant

  /// What the owner does next.
  package enum Action: Equatable, Sendable {
    /// Look for the object in the remote tier; then `found` or `notFound`.
    case lookUp
    /// Try the fleet's lock on the key; then `lockHeld`, `lockBusy` or `lockUnavailable`.
    case tryLock
    /// Fire `timer` at `until` (or `cancel` meanwhile).
    case wait(until: Instant)
    /// The wait is over.
    case finish(Outcome)
  }

  /// How the wait ended.
  package enum Outcome: Equatable, Sendable {
    case served, lockTaken, alone, timedOut, cancelled
  }

  /// What came of an action, or a cancel.
  package enum Event: Equatable, Sendable {
    case found, notFound, lockHeld, lockBusy, lockUnavailable, timer, cancel
  }

  private enum State: Equatable {
    case idle, looking, locking, sleeping, ended
  }

  private var state = State.idle
  private let deadline: Instant
  private let poll: Duration

  /// A wait that gives up at `deadline`, looking again every `poll`.
  package init(deadline: Instant, poll: Duration) {
    (self.deadline, self.poll) = (deadline, poll)
  }

  /// The first action, at `now`.
  package mutating func start(now: Instant) -> Action {
    guard state == .idle else { return .finish(.cancelled) }
    guard now < deadline else { return end(.timedOut) }
    state = .looking
    return .lookUp
  }

  /// The next action after `event` at `now`.
  package mutating func handle(_ event: Event, now: Instant) -> Action {
    if event == .cancel { return end(.cancelled) }
    switch (state, event) {
    case (.looking, .found): return end(.served)
    case (.looking, .notFound):
      guard now < deadline else { return end(.timedOut) }
      state = .locking
      return .tryLock
    case (.locking, .lockHeld): return end(.lockTaken)
    case (.locking, .lockUnavailable): return end(.alone)
    case (.locking, .lockBusy):
      guard now < deadline else { return end(.timedOut) }
      state = .sleeping
      return .wait(until: min(now + poll, deadline))
    case (.sleeping, .timer):
      guard now < deadline else { return end(.timedOut) }
      state = .looking
      return .lookUp
    default:
      // An event the state does not expect (an owner's mistake): the wait ends, and the key
      // is downloaded here — never a wait without end.
      return end(.timedOut)
    }
  }

  private mutating func end(_ outcome: Outcome) -> Action {
    state = .ended
    return .finish(outcome)
  }
}
