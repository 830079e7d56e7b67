/// A shard's life in a worker's hands (docs/fleet.md, Leases), as a plain value: taken, its
/// lease renewed every third, then finished — or given back on a signal, stopped by the job's
/// cancel, or lost to a worker that took it over. Its owner (``JobWorker``) performs the
/// actions — renewals, the give-back, stopping the prefetch, the finish — and feeds back what
/// came of them; the renewal's timer is an action, its firing an event.
///
/// | state | event | next state | action |
/// |---|---|---|---|
/// | working | `timer` | working | `renew` |
/// | working | `renewed(held: true, cancelled: false)`, `renewalFailed` | working | `wait(lease / 3)` |
/// | working | `renewed(held: false)` | lost | `stopPrefetch` |
/// | working | `renewed(cancelled: true)` | jobCancelled | `stopPrefetch` |
/// | working | `signalled` | givingBack | `giveBack` (then `stopPrefetch`) |
/// | givingBack | `gaveBack(ok)` | signalled | `stopPrefetch` |
/// | any | `prefetchEnded(cancelled:)` | ended | `finish`, or `end(…)` |
/// | lost, signalled, jobCancelled, ended | `timer`, `renewed`, … | (same) | `none` |
package struct ShardLife: Sendable, Equatable {
  /// What the owner does next.
  package enum Action: Equatable, Sendable {
    /// Nothing (the renewals end).
    case none
    /// Renew the lease now; then `renewed` or `renewalFailed`.
    case renew
    /// Fire `timer` after this long.
    case wait(Duration)
    /// Stop the shard's prefetch (it ends with `prefetchEnded(cancelled: true)`).
    case stopPrefetch
    /// Give the shard back at once; then `gaveBack`.
    case giveBack
    /// Write the shard's manifest and counts: it is done.
    case finish
    /// The shard's work is over without a finish.
    case end(Ending)
  }

  /// How a shard's work ended without a finish.
  package enum Ending: Equatable, Sendable {
    /// Its lease was taken over: left to that worker.
    case lost
    /// Stopped (a signal, the job's cancel, the prefetch cancelled); whether given back.
    case stopped(givenBack: Bool, jobCancelled: Bool)
  }

  /// What came of an action, or what happened.
  package enum Event: Equatable, Sendable {
    case timer
    case renewed(held: Bool, cancelled: Bool)
    case renewalFailed
    case signalled
    case gaveBack(Bool)
    case prefetchEnded(cancelled: Bool)
  }

  package enum State: Equatable, Sendable {
    case working, givingBack, signalled, lost, jobCancelled, ended
  }

  package private(set) var state = State.working
  /// Whether the shard was given back (by the signal's give-back).
  package private(set) var givenBack = false
  private let renewEvery: Duration

  /// A shard just taken, held by a lease of `lease` (renewed every third of it).
  package init(lease: Duration) { renewEvery = lease / 3 }

  /// The first action: the renewal's timer.
  package var first: Action { .wait(renewEvery) }

  /// The next action after `event`.
  package mutating func handle(_ event: Event) -> Action {
    switch (state, event) {
    case (.working, .timer): return .renew
    case (.working, .renewed(true, false)), (.working, .renewalFailed): return .wait(renewEvery)
    case (.working, .renewed(false, _)):
      state = .lost
      return .stopPrefetch
    case (.working, .renewed(true, true)):
      state = .jobCancelled
      return .stopPrefetch
    case (.working, .signalled), (.jobCancelled, .signalled), (.lost, .signalled):
      // A lost shard is not this worker's to give back: the script leaves it alone.
      state = .givingBack
      return .giveBack
    case (.givingBack, .gaveBack(let ok)):
      (state, givenBack) = (.signalled, ok)
      return .stopPrefetch
    case (_, .prefetchEnded(let cancelled)):
      return ended(cancelled: cancelled)
    default: return .none
    }
  }

  /// The end, once the prefetch ended: a give-back wins over what a renewal found after it
  /// (the giver is no longer the holder).
  private mutating func ended(cancelled: Bool) -> Action {
    let before = state
    state = .ended
    if givenBack { return .end(.stopped(givenBack: true, jobCancelled: false)) }
    switch before {
    case .lost: return .end(.lost)
    case .jobCancelled: return .end(.stopped(givenBack: false, jobCancelled: true))
    case .working where !cancelled: return .finish
    default: return .end(.stopped(givenBack: false, jobCancelled: false))
    }
  }
}
