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
  /// The downloader.
  public let downloader: Downloader
  private let flights = Flights()
  private let stores: StoreBatcher
  /// The start order of downloads: numbered as lookups ask for them, in input order.
  private let sequence = Atomic<UInt64>(0)

  /// Creates a pipeline over `cache` (then `readOnly` directories) downloading with `transfer`.
  public init(cache: DiskCache, readOnly: [URL] = [], transfer: TransferOptions = TransferOptions())
  {
    self.cache = cache
    tiers = [cache] + (readOnly.isEmpty ? [] : [ReadOnlyDirectories(readOnly)])
    downloader = Downloader(options: transfer)
    stores = StoreBatcher(cache: cache)
  }

  /// What the lookup decided for one URL: an answer, or a download to make.
  enum Resolution: Sendable {
    case answered(FetchResult)
    case download(Download)
  }

  /// A download the lookup asked for.
  struct Download: Sendable {
    var url: String
    var key: String
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
    let started = start(downloads.map(\.download), options: options)
    return await withTaskGroup(of: (Int, FetchResult).self) { group in
      for (entry, handle) in zip(downloads, started) {
        group.addTask { (entry.index, await self.finish(handle, options: options)) }
      }
      for await (index, result) in group { results[index] = result }
      return results.compactMap { $0 }
    }
  }

  /// Looks `urls` up without the network, in one index read per tier and one failure query
  /// for all: each gets an answer (hit, refusal, offline miss, error) or a download to make.
  func resolve(_ urls: [String], options: FetchOptions) async -> [Resolution] {
    let keys = urls.map { options.key(for: $0) }
    var answers = [Resolution?](repeating: nil, count: urls.count)
    func answer(_ index: Int, _ outcome: Result<FetchOutcome, CacheError>) {
      answers[index] = .answered(
        FetchResult(url: urls[index], key: keys[index], outcome: outcome, bytes: 0))
    }
    for (index, url) in urls.enumerated() {
      do { try RequestURL.validate(url) } catch {
        answer(index, .failure(CacheError.io("bad URL", error, url: url)))
      }
    }
    do {
      if !options.retryFailed {
        let open = urls.indices.filter { answers[$0] == nil }
        let refused = try cache.failures(
          of: open.map { urls[$0] }, fingerprint: fingerprint(options), ttl: options.failedTTL)
        for index in open {
          if let failure = refused[urls[index]] {
            answer(index, .failure(RequestURL.refused(failure, ttl: options.failedTTL)))
          }
        }
      }
      if options.mode == .normal || options.mode == .offline {
        let open = urls.indices.filter { answers[$0] == nil }
        let hits = try await lookup(keys: open.map { keys[$0] }, touch: options.touch)
        for index in open {
          if let hit = hits[keys[index]] { answer(index, .success(.hit(hit))) }
        }
        if options.retryFailed {
          for index in urls.indices where isHit(answers[index]) {
            try cache.forgetFailure(url: urls[index])
          }
        }
      }
      var validators = [String: CacheEntry]()
      if options.mode == .refresh {
        let open = urls.indices.filter { answers[$0] == nil }
        for entry in try cache.index.entries(forKeys: open.map { keys[$0] }) {
          validators[entry.key] = entry
        }
      }
      return urls.indices.map { index in
        if let answer = answers[index] { return answer }
        if options.mode == .offline {
          return .answered(
            FetchResult(
              url: urls[index], key: keys[index], outcome: .success(.offlineMiss), bytes: 0))
        }
        return .download(
          Download(
            url: urls[index], key: keys[index], validators: validators[keys[index]],
            sequence: sequence.add(1, ordering: .relaxed).newValue))
      }
    } catch {
      let failure = CacheError.io("cannot read the cache", error)
      return urls.indices.map { index in
        answers[index]
          ?? .answered(
            FetchResult(
              url: urls[index], key: keys[index], outcome: .failure(failure.about(urls[index])),
              bytes: 0))
      }
    }
  }

  /// Walks the tiers in order for `keys`: each key's first hit. A failing local cache is an
  /// error; a failing secondary tier is a miss, never a failed fetch.
  public func lookup(keys: [String], touch: Bool) async throws -> [String: CacheHit] {
    var found = [String: CacheHit]()
    var open = keys
    for (position, tier) in tiers.enumerated() where !open.isEmpty {
      do {
        found.merge(try await tier.lookup(keys: open, touch: touch)) { first, _ in first }
      } catch  where position > 0 {
        continue
      }
      open = open.filter { found[$0] == nil }
    }
    return found
  }

  private func isHit(_ resolution: Resolution?) -> Bool {
    if case .answered(let result)? = resolution, case .success(.hit) = result.outcome {
      return true
    }
    return false
  }

  /// The fingerprint of requests made with `options` through this pipeline.
  func fingerprint(_ options: FetchOptions) -> String {
    RequestFingerprint.of(downloader.options, acceptAnyBody: options.acceptAnyBody)
  }

  /// A download started by ``start(_:options:)``.
  struct Started: Sendable {
    enum Role: Sendable {
      /// Leads its flight: its transfer was submitted with this ticket.
      case leader(ticket: UInt64)
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
    let fingerprint = fingerprint(options)
    var cacheError: CacheError?
    do { try cache.prepare() } catch {
      cacheError = CacheError.io("cannot create the cache", error)
    }
    var started = [Started]()
    var requests = [(position: Int, request: DownloadRequest)]()
    for download in downloads {
      let flight = FlightKey(
        key: download.key, url: download.url, conditional: download.validators != nil,
        fingerprint: fingerprint)
      if let cacheError {
        started.append(
          Started(download: download, flight: flight, role: .failed(cacheError.about(download.url)))
        )
      } else if flights.join(flight) {
        requests.append(
          (
            started.count,
            DownloadRequest(
              url: download.url, temporaryDirectory: cache.layout.tmpDirectory.path,
              etag: download.validators?.etag, lastModified: download.validators?.lastModified,
              sequence: download.sequence)
          ))
        started.append(Started(download: download, flight: flight, role: .leader(ticket: 0)))
      } else {
        started.append(Started(download: download, flight: flight, role: .follower))
      }
    }
    for (ticket, entry) in zip(downloader.submit(requests.map(\.request)), requests) {
      started[entry.position].role = .leader(ticket: ticket)
    }
    return started
  }

  /// Waits for a started download: a leader's body is validated and stored (and its flight's
  /// followers get the result), a follower gets its leader's result.
  func finish(_ started: Started, options: FetchOptions) async -> FetchResult {
    switch started.role {
    case .failed(let error):
      return FetchResult(
        url: started.download.url, key: started.download.key, outcome: .failure(error), bytes: 0)
    case .follower:
      return await flights.result(of: started.flight)
    case .leader(let ticket):
      let result = await complete(
        ticket, download: started.download, options: options,
        fingerprint: started.flight.fingerprint)
      flights.finish(started.flight, with: result)
      return result
    }
  }

  /// Downloads, validates and stores `download`, joining a download of it in flight.
  func download(_ download: Download, options: FetchOptions) async -> FetchResult {
    await finish(start([download], options: options)[0], options: options)
  }

  private func complete(
    _ ticket: UInt64, download: Download, options: FetchOptions, fingerprint: String
  ) async -> FetchResult {
    let (url, key) = (download.url, download.key)
    func result(_ outcome: Result<FetchOutcome, CacheError>, bytes: Int64 = 0) -> FetchResult {
      FetchResult(url: url, key: key, outcome: outcome, bytes: bytes)
    }
    let response: DownloadResponse
    switch await downloader.result(of: ticket) {
    case .failure(let error):
      if error.isPermanent {
        try? cache.recordFailure(url: url, fingerprint: fingerprint, error: error)
      }
      return result(.failure(error))
    case .success(let success):
      response = success
    }
    guard let file = response.file else {
      let metadata = EntryMetadata(etag: response.etag, lastModified: response.lastModified)
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
    let pending: PendingStore
    do {
      pending = try BodyCheck.validated(
        file, response: response, url: url, key: key, options: options)
    } catch {
      let failure = CacheError.io("cannot check the body", error, url: url)
      if failure.isPermanent {
        try? cache.recordFailure(url: url, fingerprint: fingerprint, error: failure)
      }
      return result(.failure(failure), bytes: response.bytes)
    }
    let stored = await stores.store(pending).map { entry -> FetchOutcome in
      let path = cache.layout.dataPath(entry.file)
      return download.validators == nil
        ? .downloaded(entry, path: path) : .revalidated(entry, path: path)
    }
    return result(stored, bytes: response.bytes)
  }
}
