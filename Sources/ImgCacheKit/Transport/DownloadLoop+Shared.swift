import Foundation

/// The download loop's politeness beside the other processes of its cache (``SharedHosts``):
/// the scheduler decides for this process, the shared file for all of them.
extension DownloadLoop {
  /// Whether a transfer for `host` may start at `now`: the scheduler's answer, then, when it
  /// says start, the shared state's — which may know another process's pause, and takes the
  /// rates' next starts for every process.
  func admission(for host: String, now: ContinuousClock.Instant) -> HostScheduler.Admission {
    let local = scheduler.admission(for: host, now: now)
    guard case .start = local, let shared else { return local }
    let wall = SharedHosts.now()
    let limits = scheduler.limits
    let claim = shared.claim(
      host, now: wall,
      perHost: HostScheduler.interval(limits.ratePerHost).flatMap(\.checkedNanoseconds),
      overall: HostScheduler.interval(limits.rate).flatMap(\.checkedNanoseconds))
    switch claim {
    case .start: return .start
    case .wait(let until): return .wait(until: now + .nanoseconds(until &- wall))
    case .paused(let until), .refuse(let until):
      // Another process's pause, judged by this process's own cap (`retry_after_max`); a
      // rate's wait never is.
      let wait = Duration.nanoseconds(until &- wall)
      let cap = Duration.seconds(max(0, min(limits.retryAfterMax, RetryAfter.longest)))
      return wait > cap ? .refuse(until: now + wait) : .wait(until: now + wait)
    }
  }

  /// Shares `host`'s pause (a refusal too: the time the host asked for) with the other
  /// processes, each of which judges it by its own `retry_after_max`. At most a day is shared:
  /// an absurd `Retry-After` must not hold a cache's every later run.
  func share(_ host: String, now: ContinuousClock.Instant) {
    guard let shared else { return }
    let (paused, refused) = scheduler.pause(of: host)
    let wall = SharedHosts.now()
    for until in [paused, refused].compactMap({ $0 }) where until > now {
      guard let wait = min(until - now, Self.longestShared).checkedNanoseconds else { continue }
      shared.pause(host, until: wall &+ wait, now: wall)
    }
  }

  /// The longest pause shared with the other processes.
  static let longestShared = Duration.seconds(86_400)
}
