import Foundation

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

  /// Waits for the process holding `job`'s key lock: ends with the lock (it stored nothing:
  /// failed, or died and the kernel dropped its lock), without it (the wait timed out — the
  /// whole wait, or the idle timeout without progress: a stopped holder), or cancelled; then
  /// looks for what it stored.
  func waitForProcess(_ job: Job, options: FetchOptions) async -> JobMachine.Event {
    guard case .waiting(let plan) = job.state else {
      return .waited(lock: nil, served: nil, cancelled: false)
    }
    // The holder's progress shows in its partial body (a resumable download); without one, a
    // holder gets the idle timeout to finish before this process downloads the key itself.
    let partial = cache.layout.partialFile(forKey: job.key)
    let lock = try? await cache.keyLocks.wait(
      key: job.key, until: lockDeadline(), idle: lockIdle()
    ) {
      FileIO.sizes(of: partial)?.size ?? -1
    }
    guard !Task.isCancelled else { return .waited(lock: lock, served: nil, cancelled: true) }
    if let served = servedFromAnotherProcess(key: job.key, file: plan.file, options: options) {
      return .waited(lock: lock, served: served, cancelled: false)
    }
    // This machine's other processes stored nothing: another machine may be downloading it.
    return await waitForFleet(job, lock: lock, options: options)
  }

  /// Takes the fleet's lock on `key` beside this process's (`held`), when there is a fleet
  /// and the job writes back: `.busy` (this process's lock let go) when another machine holds
  /// it; without an answer from Redis the download goes on alone.
  func fleetLock(
    _ job: Job, holding held: KeyLock, options: FetchOptions
  ) -> JobMachine.LockAttempt {
    guard let fleetLocks, sharesDownload(job, options) else { return .held(held) }
    switch fleetLocks.attempt(key: job.key) {
    case .held(let name):
      held.holding { fleetLocks.release(name) }
      return .held(held)
    case .busy:
      held.release()
      return .busy
    case .unavailable: return .held(held)
    }
  }

  /// Waits while another machine holds the fleet's lock on `job`'s key (it renews it while it
  /// downloads; one that died lets it lapse), looking for the object in the remote tier every
  /// ``fleetPoll``: served from there once it is, else (the lock gone, or the wait past the
  /// key lock's deadline) downloaded here, under the fleet's lock when it can be had.
  func waitForFleet(_ job: Job, lock: KeyLock?, options: FetchOptions) async -> JobMachine.Event {
    guard let fleetLocks, sharesDownload(job, options), let url = job.request?.stripped else {
      return .waited(lock: lock, served: nil, cancelled: false)
    }
    let deadline = lockDeadline()
    while !Task.isCancelled && ContinuousClock.now < deadline {
      let found = await remoteHits(keys: [job.key], urls: [job.key: url], options: options)
      if let hit = found[job.key] {
        lock?.release()
        return .waited(lock: nil, served: hit, cancelled: false)
      }
      switch fleetLocks.attempt(key: job.key) {
      case .held(let name):
        // Let go with this process's lock; without one (its wait ran out), at once.
        if let lock { lock.holding { fleetLocks.release(name) } } else { fleetLocks.release(name) }
        return .waited(lock: lock, served: nil, cancelled: false)
      case .unavailable: return .waited(lock: lock, served: nil, cancelled: false)
      case .busy: try? await Task.sleep(for: Self.fleetPoll)
      }
    }
    return .waited(lock: lock, served: nil, cancelled: Task.isCancelled)
  }

  /// Whether `job`'s download would reach the remote tier, for another machine to be served
  /// from: written back, and anyone's to share (no credentials, headers or cookies).
  func sharesDownload(_ job: Job, _ options: FetchOptions) -> Bool {
    guard writesBack(options), options.mode == .normal, let request = job.request else {
      return false
    }
    return isShareable(request)
  }

  /// How often a machine waiting for another's download looks for its object.
  static let fleetPoll = Duration.milliseconds(200)
}
