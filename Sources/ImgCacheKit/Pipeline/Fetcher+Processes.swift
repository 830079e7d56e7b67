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

  /// The entry another process stored for `download` since this one's lookup, as this
  /// request's result; nil when there is none. Checks the file first (a `stat`), so a key no
  /// one stored costs no index read.
  func servedFromAnotherProcess(_ download: Download, options: FetchOptions) -> FetchResult? {
    let file = cache.layout.dataPath(CacheLayout.relativeFile(for: download.key))
    guard FileIO.isFile(file),
      let hit = try? cache.hits(forKeys: [download.key], touch: false)[download.key],
      case .local(let entry, _) = hit
    else { return nil }
    if options.touch {
      _ = try? cache.use(
        [download.key], counting: [.waitedForProcess: 1, .bytesServed: entry.size])
    } else {
      cache.note([.waitedForProcess: 1])
    }
    return FetchResult(
      url: download.request.display, key: download.key, outcome: .success(.hit(hit)), bytes: 0)
  }

  /// Waits for the process holding the key's lock, then serves what it stored, or downloads the
  /// key (holding the lock) when it stored nothing: it failed, died, or the wait timed out —
  /// the whole wait, or the idle timeout without progress (a stopped holder).
  func afterAnotherProcess(_ started: Started, options: FetchOptions) async
    -> FetchResult
  {
    let download = started.download
    // The holder's progress shows in its partial body (a resumable download); without one, a
    // holder gets the idle timeout to finish before this process downloads the key itself.
    let partial = cache.layout.partialFile(forKey: download.key)
    let idle = Duration.milliseconds(Checked.milliseconds(transfer.idleTimeout))
    let lock = try? await cache.keyLocks.wait(
      key: download.key, until: lockDeadline(), idle: idle
    ) {
      FileIO.sizes(of: partial)?.size ?? -1
    }
    defer { lock?.release() }
    if Task.isCancelled {
      return FetchResult(
        url: download.request.display, key: download.key,
        outcome: .failure(CacheError(.cancelled, "cancelled", url: download.request.display)),
        bytes: 0)
    }
    if let result = servedFromAnotherProcess(download, options: options) { return result }
    // The holder may have died part way: its partial body is resumed.
    let ticket = downloader.submit([downloadRequest(download, resumable: lock != nil)])[0]
    return await complete(
      ticket, download: download, options: options, fingerprint: started.flight.fingerprint,
      resumed: lock != nil)
  }
}
