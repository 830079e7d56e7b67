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
      perHost: HostScheduler.interval(limits.ratePerHost).flatMap(Self.nanoseconds),
      overall: HostScheduler.interval(limits.rate).flatMap(Self.nanoseconds))
    switch claim {
    case .start: return .start
    case .wait(let until): return .wait(until: now + .nanoseconds(until &- wall))
    case .refuse(let until): return .refuse(until: now + .nanoseconds(until &- wall))
    }
  }

  /// Shares `host`'s pause or refusal, as the scheduler now holds it, with the other processes.
  func share(_ host: String, now: ContinuousClock.Instant) {
    guard let shared else { return }
    let (paused, refused) = scheduler.pause(of: host)
    let wall = SharedHosts.now()
    if let paused, paused > now, let wait = Self.nanoseconds(paused - now) {
      shared.pause(host, until: wall &+ wait, now: wall)
    }
    if let refused, refused > now, let wait = Self.nanoseconds(refused - now) {
      shared.refuse(host, until: wall &+ wait, now: wall)
    }
  }

  /// `duration` in nanoseconds; nil past `Int64` (no wait the scheduler holds is that long).
  static func nanoseconds(_ duration: Duration) -> Int64? {
    let (seconds, attoseconds) = duration.components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return nil }
    let (total, overflowSum) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return overflowSum ? nil : total
  }
}
