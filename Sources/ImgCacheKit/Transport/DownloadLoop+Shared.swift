import FoundationEssentials

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

  /// This machine's answer: the other processes of its cache, through the shared file, whose
  /// times are judged by this process's rates and `retry_after_max`.
  private func machine(_ host: String, now: ContinuousClock.Instant) -> HostScheduler.Admission {
    guard let shared else { return .start }
    let boot = SharedHosts.now()
    let claim = shared.claim(host, now: boot, bounds: sharedBounds)
    switch claim {
    case .start: return .start
    case .wait(let until), .paused(let until):
      return .wait(until: now + .microseconds(until &- boot))
    case .refuse(let until): return .refuse(until: now + .microseconds(until &- boot))
    }
  }

  /// What this process means by the shared file's times: its rates and its cap.
  var sharedBounds: SharedHosts.Bounds {
    let limits = scheduler.limits
    return SharedHosts.Bounds(
      perHost: HostScheduler.interval(limits.ratePerHost).flatMap(\.checkedMicroseconds),
      overall: HostScheduler.interval(limits.rate).flatMap(\.checkedMicroseconds),
      longestPause: limits.pauseCap.checkedMicroseconds ?? SharedHosts.Bounds.day)
  }

  /// The fleet's answer, when there is a fleet: a start it reserved under the host's rate, or
  /// its pause — from what this machine holds, never a round trip on this thread.
  private func fleetAdmission(
    for host: String, now: ContinuousClock.Instant
  ) -> HostScheduler.Admission {
    guard let fleet = options.fleet?.politeness else { return .start }
    let interval = HostScheduler.interval(scheduler.limits.ratePerHost).flatMap(
      \.checkedNanoseconds)
    self.fleet.prune(now: now)
    switch fleet.reserve(host, interval: interval) {
    case nil, .start(in: ...0): return .start
    case .pending: return .wait(until: now + FleetAdmissions.pendingCheck)
    case .start(let wait):
      let due = now + .nanoseconds(wait)
      self.fleet.reserved[host] = due
      return .wait(until: due)
    case .paused(let wait):
      let cap = scheduler.limits.pauseCap
      let until = now + .nanoseconds(wait)
      guard .nanoseconds(wait) <= cap else { return .refuse(until: until) }
      // Its other transfers wait for it too, without asking again.
      self.fleet.paused[host] = until
      return .wait(until: until)
    }
  }

  /// Shares `host`'s pause and refusal with the other processes, each of which judges them by
  /// its own `retry_after_max`, and with the fleet. At most a day is shared: an absurd
  /// `Retry-After` must not hold a cache's every later run.
  func share(_ host: String, now: ContinuousClock.Instant) {
    let (paused, refused) = scheduler.pause(of: host)
    let boot = SharedHosts.now()
    // A pause is shared up to this process's cap: a reader takes one past its own cap for a
    // clock that is not its own (a backoff floored at `retry_delay` may pass the cap here).
    let cap = scheduler.limits.pauseCap
    if let paused, paused > now,
      let wait = min(paused - now, cap, Self.longestShared).checkedMicroseconds
    {
      shared?.pause(host, until: boot &+ wait, now: boot)
      options.fleet?.politeness.pause(host, for: wait &* 1_000)
    }
    if let refused, refused > now,
      let wait = min(refused - now, Self.longestShared).checkedMicroseconds
    {
      shared?.refuse(host, until: boot &+ wait, now: boot)
      options.fleet?.politeness.pause(host, for: wait &* 1_000)
    }
  }

  /// The longest pause shared with the other processes.
  static let longestShared = Duration.seconds(86_400)

  /// The failure of a transfer whose host asked for a wait past `retry_after_max`.
  func refused(
    _ transfer: CurlTransfer, until: ContinuousClock.Instant, now: ContinuousClock.Instant
  ) -> CacheError {
    let seconds = Int64(max(0, ((until - now) / .seconds(1)).rounded(.up)))
    return CacheError(
      .rateLimited,
      "the host asked to wait \(seconds) s more (Retry-After), past retry_after_max "
        + "(\(PolicyValue.text(duration: options.retryAfterMax)))",
      url: transfer.request.url, httpStatus: transfer.status == 0 ? nil : transfer.status)
  }

  /// The failure of a transfer whose host throttled past `throttle_limit` this run.
  func abandoned(_ transfer: CurlTransfer) -> CacheError {
    CacheError(
      .rateLimited,
      "\(transfer.host) throttled \(options.throttleLimit + 1) times in a row with no answer "
        + "between (throttle_limit \(options.throttleLimit)): its URLs fail for the rest of the run "
        + "(ten minutes at most)",
      url: transfer.request.url, httpStatus: transfer.status == 0 ? nil : transfer.status)
  }
}
