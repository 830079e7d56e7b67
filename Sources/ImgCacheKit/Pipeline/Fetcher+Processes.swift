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
    let served = servedFromAnotherProcess(key: job.key, file: plan.file, options: options)
    return .waited(lock: lock, served: served, cancelled: false)
  }
}
