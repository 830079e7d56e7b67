import Foundation
import Synchronization

/// The pipeline (SDWebImageManager, persistent), used by `fetch`, `query` and `prefetch`
/// alike. The lookup order is written once, in ``resolve(_:options:)``: URL check → failed
/// requests → storage tiers in order (local cache, read-only directories, later remote) →
/// network. Downloads are validated, stored in batches, and shared by callers of one key.
public final class Fetcher: Sendable {
  /// The local cache, the first tier.
  public let cache: DiskCache
  /// Every tier, in lookup order; the first is ``cache``.
  public let tiers: [any BlobStore]
  /// How downloads talk to servers.
  public let transfer: TransferOptions
  /// The downloader, created on first use (a lookup alone never loads libcurl's state).
  public var downloader: Downloader {
    if let existing = downloaderSlot.withLock({ $0 }) { return existing }
    let created = Downloader(options: transfer)
    return downloaderSlot.withLock { slot in
      if let existing = slot { return existing }
      slot = created
      return created
    }
  }
  private let downloaderSlot = Mutex<Downloader?>(nil)
  private let flights = Flights()
  let stores: StoreBatcher
  /// The start order of downloads: numbered as lookups ask for them, in input order.
  private let sequence = Atomic<UInt64>(0)

  /// The next place in the start order.
  func nextSequence() -> UInt64 { sequence.add(1, ordering: .relaxed).newValue }

  /// The shared tier asked after `tiers` and written back after downloads, if any.
  public let remote: RemoteTier?

  /// Creates a pipeline over `cache` (then `readOnly` directories, then `remote`) downloading
  /// with `transfer`.
  public init(
    cache: DiskCache, readOnly: [URL] = [], remote: RemoteTier? = nil,
    transfer: TransferOptions = TransferOptions()
  ) {
    self.cache = cache
    tiers = [cache] + (readOnly.isEmpty ? [] : [ReadOnlyDirectories(readOnly)])
    self.remote = remote
    self.transfer = transfer
    stores = StoreBatcher(cache: cache)
  }

  /// What the lookup decided for one URL: an answer, or a download to make.
  enum Resolution: Sendable {
    case answered(FetchResult)
    case download(Download)
  }

  /// A download the lookup asked for.
  struct Download: Sendable {
    /// The URL, its printed form and its credentials.
    var request: RequestURL
    var key: String
    /// The URL requested, without credentials.
    var url: String { request.stripped }
    /// The stored entry whose validators make the request conditional (refresh).
    var validators: CacheEntry?
    /// Its place in the start order.
    var sequence: UInt64
  }

  /// Fetches `url` through the cache.
  public func fetch(_ url: String, options: FetchOptions = FetchOptions()) async -> FetchResult {
    await fetch([url], options: options)[0]
  }

  /// Fetches `urls` through the cache, concurrently, looked up in one batch and started in
  /// their order; returns the results in that order.
  public func fetch(_ urls: [String], options: FetchOptions = FetchOptions()) async
    -> [FetchResult]
  {
    var results = [FetchResult?](repeating: nil, count: urls.count)
    var downloads = [(index: Int, download: Download)]()
    for (index, resolution) in await resolve(urls, options: options).enumerated() {
      switch resolution {
      case .answered(let result): results[index] = result
      case .download(let download): downloads.append((index, download))
      }
    }
    if downloads.count == 1, let only = downloads.first {
      // One download: no task group, and its body stored without the batcher's hops.
      var alone = options
      alone.storesAlone = true
      results[only.index] = await finish(start([only.download], options: alone)[0], options: alone)
      return results.compactMap { $0 }
    }
    let started = start(downloads.map(\.download), options: options)
    return await withTaskGroup(of: (Int, FetchResult).self) { group in
      for (entry, handle) in zip(downloads, started) {
        group.addTask { (entry.index, await self.finish(handle, options: options)) }
      }
      for await (index, result) in group { results[index] = result }
      return results.compactMap { $0 }
    }
  }

  /// A download started by ``start(_:options:)``.
  struct Started: Sendable {
    enum Role: Sendable {
      /// Leads its flight: its transfer was submitted with this ticket, holding the key's
      /// lock between processes when it could take it.
      case leader(ticket: UInt64, lock: KeyLock?)
      /// Leads its flight, but another process is downloading the key: waits for its lock.
      case waiting
      /// Another process stored the key between the lookup and the lock: served from it.
      case answered(FetchResult)
      /// Waits for the leader of its flight.
      case follower
      /// Could not start.
      case failed(CacheError)
    }

    var download: Download
    var flight: FlightKey
    var role: Role
  }

  /// Starts `downloads` in their order, without waiting: each joins the flight of its request
  /// (one transfer per request in flight), and the leaders' transfers are submitted at once,
  /// so the downloader sees them in input order. Every result must be awaited with ``finish``.
  func start(_ downloads: [Download], options: FetchOptions) -> [Started] {
    // All hits: nothing to prepare (three mkdir calls a line in `fetch -i`).
    guard !downloads.isEmpty else { return [] }
    var cacheError: CacheError?
    do { try cache.prepare() } catch {
      cacheError = CacheError.io("cannot create the cache", error)
    }
    var started = [Started]()
    var requests = [(position: Int, request: DownloadRequest)]()
    for download in downloads {
      let flight = FlightKey(
        key: download.key, url: download.url, conditional: download.validators != nil,
        fingerprint: fingerprint(options, download.request))
      if let cacheError {
        started.append(
          Started(
            download: download, flight: flight,
            role: .failed(cacheError.about(download.request.display)))
        )
      } else if flights.join(flight) {
        var lock: KeyLock?
        // Only a plain miss: --reload and --refresh want a new response whatever is stored.
        if options.mode == .normal && download.validators == nil {
          // Without a lock (an unwritable locks/), the download goes on alone.
          switch Result(catching: { try cache.keyLocks.attempt(key: download.key) }) {
          case .success(nil):
            started.append(Started(download: download, flight: flight, role: .waiting))
            continue
          case .success(let held?):
            if let result = servedFromAnotherProcess(download, options: options) {
              held.release()
              started.append(Started(download: download, flight: flight, role: .answered(result)))
              continue
            }
            lock = held
          case .failure: break
          }
        }
        requests.append((started.count, downloadRequest(download, resumable: lock != nil)))
        started.append(
          Started(download: download, flight: flight, role: .leader(ticket: 0, lock: lock)))
      } else {
        started.append(Started(download: download, flight: flight, role: .follower))
      }
    }
    let tickets = requests.isEmpty ? [] : downloader.submit(requests.map(\.request))
    for (ticket, entry) in zip(tickets, requests) {
      if case .leader(_, let lock) = started[entry.position].role {
        started[entry.position].role = .leader(ticket: ticket, lock: lock)
      }
    }
    return started
  }

  /// Waits for a started download: a leader's body is validated and stored (and its flight's
  /// followers get the result), a follower gets its leader's result.
  func finish(_ started: Started, options: FetchOptions) async -> FetchResult {
    switch started.role {
    case .failed(let error):
      return FetchResult(
        url: started.download.request.display, key: started.download.key,
        outcome: .failure(error), bytes: 0)
    case .follower:
      return await flights.result(of: started.flight)
    case .answered(let result):
      flights.finish(started.flight, with: result)
      return result
    case .leader(let ticket, let lock):
      let result = await complete(
        ticket, download: started.download, options: options,
        fingerprint: started.flight.fingerprint, resumed: lock != nil)
      lock?.release()
      flights.finish(started.flight, with: result)
      return result
    case .waiting:
      let result = await afterAnotherProcess(started, options: options)
      flights.finish(started.flight, with: result)
      return result
    }
  }

  /// Downloads, validates and stores `download`, joining a download of it in flight.
  func download(_ download: Download, options: FetchOptions) async -> FetchResult {
    await finish(start([download], options: options)[0], options: options)
  }

  func complete(
    _ ticket: UInt64, download: Download, options: FetchOptions, fingerprint: String,
    resumed: Bool = false
  ) async -> FetchResult {
    let (url, key) = (download.url, download.key)
    func result(_ outcome: Result<FetchOutcome, CacheError>, bytes: Int64 = 0) -> FetchResult {
      // Printed with the userinfo as ***; stored and keyed without it.
      let shown = outcome.mapError { error in
        var error = error
        error.url = download.request.display
        return error
      }
      return FetchResult(url: download.request.display, key: key, outcome: shown, bytes: bytes)
    }
    let response: DownloadResponse
    let delivered = await downloader.result(of: ticket)
    // The loop only handed over "a partial started": written before anything deletes it.
    if resumed { cache.flushPartialRecords() }
    switch delivered {
    case .failure(let error):
      if resumed, let restarted = await restartWithoutRange(after: error, download, options) {
        return restarted
      }
      cache.noteFailure(error)
      if let stale = staleCopy(download, after: error, options: options) {
        return result(.success(stale))
      }
      if error.isPermanent {
        try? cache.recordFailure(url: url, fingerprint: fingerprint, error: error)
      }
      return result(.failure(error))
    case .success(let success):
      response = success
    }
    guard let file = response.file else {
      let metadata = EntryMetadata(
        etag: response.etag, lastModified: response.lastModified, freshness: response.freshness)
      do {
        guard let entry = try cache.revalidate(key: key, with: metadata) else {
          return result(
            .failure(
              CacheError(.protocolError, "304 Not Modified, but the entry is gone", url: url)))
        }
        return result(.success(.notModified(entry, path: cache.layout.dataPath(entry.file))))
      } catch {
        return result(.failure(CacheError.io("cannot update the entry", error, url: url)))
      }
    }
    var pending: PendingStore
    do {
      pending = try BodyCheck.validated(
        file, response: response, url: url, key: key, options: options)
      pending.metadata.shareable = isShareable(download)
    } catch {
      let failure = CacheError.io("cannot check the body", error, url: url)
      cache.noteFailure(failure)
      if failure.isPermanent {
        try? cache.recordFailure(url: url, fingerprint: fingerprint, error: failure)
      }
      return result(.failure(failure), bytes: response.bytes)
    }
    if options.freshness.mode == .http,
      !CacheDirectives(response.freshness.cacheControl).allowsStoring(
        status: response.freshness.status ?? response.status)
    {
      cache.note([.notStored: 1])
      return result(.success(.notStored(body: pending.temporaryPath)), bytes: response.bytes)
    }
    let stored = await store(pending, alone: options.storesAlone).map { entry -> FetchOutcome in
      let path = cache.layout.dataPath(entry.file)
      return download.validators == nil
        ? .downloaded(entry, path: path) : .revalidated(entry, path: path)
    }
    switch stored {
    case .failure(let error): cache.noteFailure(error)
    case .success(let outcome): await writeBack(outcome, options: options)
    }
    return result(stored, bytes: response.bytes)
  }
}
