import Foundation

/// The download loop's politeness beside the other processes of its cache (``SharedHosts``):
/// the scheduler decides for this process, the shared file for all of them.
extension DownloadLoop {
  /// Whether a transfer for `host` may start at `now`: the scheduler's answer, then, when it
  /// says start, the shared state's — which may know another process's pause, and takes the
  /// rates' next starts for every process.
  func admission(for host: String, now: ContinuousClock.Instant) -> HostScheduler.Admission {
    let local = scheduler.admission(for: host, now: now)
    guard case .start = local else { return local }
    if let until = fleet.paused[host] {
      guard until <= now else { return .wait(until: until) }
      fleet.paused[host] = nil
    }
    if let reserved = fleet.reserved[host] {
      // The fleet's start, reserved before: taken when due, whatever the others do now.
      guard reserved <= now else { return .wait(until: reserved) }
      fleet.reserved[host] = nil
      if now - reserved < FleetAdmissions.reservationLife { return .start }
    }
    let machine = self.machine(host, now: now)
    guard case .start = machine else { return machine }
    return fleetAdmission(for: host, now: now)
  }

  /// This machine's answer: the other processes of its cache, through the shared file.
  private func machine(_ host: String, now: ContinuousClock.Instant) -> HostScheduler.Admission {
    guard let shared else { return .start }
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

  /// The fleet's answer, when there is a fleet: a start reserved under the host's rate (one
  /// round trip a start), or without a rate its pause, asked at most once a second.
  private func fleetAdmission(
    for host: String, now: ContinuousClock.Instant
  ) -> HostScheduler.Admission {
    guard let fleet = options.fleet?.politeness else { return .start }
    let interval = HostScheduler.interval(scheduler.limits.ratePerHost).flatMap(
      \.checkedNanoseconds)
    self.fleet.prune(now: now)
    if interval == nil {
      if let asked = self.fleet.asked[host], now - asked < FleetAdmissions.pauseCheck {
        return .start
      }
      self.fleet.asked[host] = now
    }
    switch fleet.reserve(host, interval: interval) {
    case nil, .start(in: ...0): return .start
    case .start(let wait):
      let due = now + .nanoseconds(wait)
      self.fleet.reserved[host] = due
      return .wait(until: due)
    case .paused(let wait):
      let cap = Duration.seconds(max(0, min(scheduler.limits.retryAfterMax, RetryAfter.longest)))
      let until = now + .nanoseconds(wait)
      guard .nanoseconds(wait) <= cap else { return .refuse(until: until) }
      // Its other transfers wait for it too, without asking again.
      self.fleet.paused[host] = until
      return .wait(until: until)
    }
  }

  /// Shares `host`'s pause (a refusal too: the time the host asked for) with the other
  /// processes, each of which judges it by its own `retry_after_max`, and with the fleet. At
  /// most a day is shared: an absurd `Retry-After` must not hold a cache's every later run.
  func share(_ host: String, now: ContinuousClock.Instant) {
    let (paused, refused) = scheduler.pause(of: host)
    let wall = SharedHosts.now()
    for until in [paused, refused].compactMap({ $0 }) where until > now {
      guard let wait = min(until - now, Self.longestShared).checkedNanoseconds else { continue }
      shared?.pause(host, until: wall &+ wait, now: wall)
      options.fleet?.politeness.pause(host, for: wait)
    }
  }

  /// The longest pause shared with the other processes.
  static let longestShared = Duration.seconds(86_400)
}
