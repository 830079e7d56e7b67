import Dispatch

/// The time a prefetch decides on and the timers that end its waits: the monotonic clock and
/// dispatch timers (``SystemPrefetchClock``), or a test's hand (a timer is an action, its
/// firing an event; docs/architecture.md, The prefetch loop).
protocol PrefetchClock: Sendable {
  /// The time now.
  func now() -> ContinuousClock.Instant
  /// Runs `work` once, at (or after) `deadline`.
  func setTimer(at deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () -> Void)
}

/// The monotonic clock, and timers on a dispatch queue (a busy cooperative pool would run a
/// sleeping task late).
struct SystemPrefetchClock: PrefetchClock {
  func now() -> ContinuousClock.Instant { .now }

  func setTimer(at deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () -> Void) {
    let left = (deadline - .now).components
    let micros =
      left.seconds < 0
      ? 0
      : min(left.seconds, 86_400) * 1_000_000
        + left.attoseconds / 1_000_000_000_000
    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(micros)), execute: work)
  }
}
