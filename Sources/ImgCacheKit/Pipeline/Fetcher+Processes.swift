import FoundationEssentials

/// One download per URL across processes (`xargs -P`, GNU parallel, cron jobs): the process
/// that takes the key's ``KeyLock`` downloads; the others wait for the lock, then serve what it
/// stored. A holder that dies (even by SIGKILL) releases the lock, and a waiter downloads.
extension Fetcher {
  /// How long a process waits for another one's download of the same key before it downloads
  /// the key itself: the transfer's own time limit when there is one, else ten minutes (a
  /// transfer that makes progress is not stopped by its idle timeout).
  func lockDeadline() -> ContinuousClock.Instant {
    let limit = transfer.maxTime > 0 ? transfer.maxTime + transfer.connectTimeout : 600
    return .now + .milliseconds(Checked.milliseconds(limit))
  }

  /// How long a waiter lets a lock holder go without progress: the transfer's idle timeout.
  func lockIdle() -> Duration { .milliseconds(Checked.milliseconds(transfer.idleTimeout)) }

  /// The hit another process stored for `key` (in `file`) since this one's lookup; nil when
  /// there is none. Checks the file first (a `stat`), so a key no one stored costs no index read.
  func servedFromAnotherProcess(key: String, file: String, options: FetchOptions) -> CacheHit? {
    guard FileIO.isFile(cache.layout.dataPath(file)),
      let hit = try? cache.hits(forKeys: [key], touch: false)[key],
      case .local(let entry, _) = hit
    else { return nil }
    if options.touch {
      _ = try? cache.use(
        [(key, entry.digest)], counting: [.waitedForProcess: 1, .bytesServed: entry.size])
    } else {
      cache.note([.waitedForProcess: 1])
    }
    return hit
  }

  /// Waits for the process holding `fetch`'s key lock: ends with the lock (it stored nothing:
  /// failed, or died and the kernel dropped its lock), without it (the wait timed out — the
  /// whole wait, or the idle timeout without progress: a stopped holder), or cancelled; then
  /// looks for what it stored.
  func waitForProcess(_ fetch: Fetch, plan: Fetch.Plan, options: FetchOptions) async
    -> FetchMachine.Event
  {
    // The holder's progress shows in its partial body (a resumable download); without one, a
    // holder gets the idle timeout to finish before this process downloads the key itself.
    let partial = cache.layout.partialFile(forKey: fetch.key)
    let lock = try? await cache.keyLocks.wait(
      key: fetch.key, until: lockDeadline(), idle: lockIdle()
    ) {
      FileIO.sizes(of: partial)?.size ?? -1
    }
    guard !Task.isCancelled else { return .waited(lock: lock, served: nil, cancelled: true) }
    if let served = servedFromAnotherProcess(key: fetch.key, file: plan.file, options: options) {
      return .waited(lock: lock, served: served, cancelled: false)
    }
    // This machine's other processes stored nothing: another machine may be downloading it.
    return await waitForFleet(fetch, lock: lock, options: options)
  }

  /// Takes the fleet's lock on `key` beside this process's (`held`), when there is a fleet
  /// and the fetch writes back: `.busy` (this process's lock let go) when another machine holds
  /// it; without an answer from Redis the download goes on alone.
  func fleetLock(
    _ fetch: Fetch, holding held: KeyLock, options: FetchOptions
  ) -> FetchMachine.LockAttempt {
    guard let fleetLocks, sharesDownload(fetch, options) else { return .held(held) }
    switch fleetLocks.attempt(key: fetch.key) {
    case .held(let name):
      held.holding { fleetLocks.release(name) }
      return .held(held)
    case .busy:
      held.release()
      return .busy
    case .unavailable: return .held(held)
    }
  }

  /// Waits while another machine holds the fleet's lock on `fetch`'s key (it renews it while it
  /// downloads; one that died lets it lapse), looking for the object in the remote tier every
  /// ``fleetPoll``: served from there once it is, else (the lock gone, or the wait past the
  /// key lock's deadline) downloaded here, under the fleet's lock when it can be had. The
  /// decisions are ``FleetWaitMachine``'s; this performs its actions.
  func waitForFleet(_ fetch: Fetch, lock: KeyLock?, options: FetchOptions) async
    -> FetchMachine.Event
  {
    guard let fleetLocks, sharesDownload(fetch, options), let url = fetch.request?.stripped else {
      return .waited(lock: lock, served: nil, cancelled: false)
    }
    var machine = FleetWaitMachine(deadline: lockDeadline(), poll: Self.fleetPoll)
    var action = machine.start(now: .now)
    var served: CacheHit?
    var fleetLock: String?
    while true {
      let event: FleetWaitMachine.Event
      switch action {
      case .lookUp:
        served = await remoteHits(keys: [fetch.key], urls: [fetch.key: url], options: options)[
          fetch.key]
        event = served == nil ? .notFound : .found
      case .tryLock:
        switch fleetLocks.attempt(key: fetch.key) {
        case .held(let name): (fleetLock, event) = (name, .lockHeld)
        case .busy: event = .lockBusy
        case .unavailable: event = .lockUnavailable
        }
      case .wait(let until):
        try? await Task.sleep(until: until, clock: .continuous)
        event = .timer
      case .finish(let outcome):
        return finishFleetWait(outcome, lock: lock, served: served, fleetLock: fleetLock)
      }
      action = machine.handle(Task.isCancelled ? .cancel : event, now: .now)
    }
  }

  /// What a fleet wait that ended as `outcome` hands the fetch machine: the object served
  /// (this process's lock let go), or this process's lock — holding the fleet's lock when it
  /// was taken (let go with it; without it, at once).
  private func finishFleetWait(
    _ outcome: FleetWaitMachine.Outcome, lock: KeyLock?, served: CacheHit?, fleetLock: String?
  ) -> FetchMachine.Event {
    if outcome == .served, let served {
      lock?.release()
      return .waited(lock: nil, served: served, cancelled: false)
    }
    if let fleetLock, let fleetLocks {
      if let lock {
        lock.holding { fleetLocks.release(fleetLock) }
      } else {
        fleetLocks.release(fleetLock)
      }
    }
    return .waited(lock: lock, served: nil, cancelled: outcome == .cancelled)
  }

  /// Whether `fetch`'s download would reach the remote tier, for another machine to be served
  /// from: written back, and anyone's to share (no credentials, headers or cookies).
  func sharesDownload(_ fetch: Fetch, _ options: FetchOptions) -> Bool {
    guard writesBack(options), options.mode == .normal, let request = fetch.request else {
      return false
    }
    return isShareable(request)
  }

  /// How often a machine waiting for another's download looks for its object.
  static let fleetPoll = Duration.milliseconds(200)
}
