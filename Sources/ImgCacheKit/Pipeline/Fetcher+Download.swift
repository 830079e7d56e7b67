import Foundation

/// The download stages: each takes one job in the state it handles and returns where it goes
/// next (``Fetcher/drive(_:options:)`` runs them until the job is done).
extension Fetcher {
  /// Stage: the jobs to download join the flight of their request (one transfer per request
  /// in flight in this process); a leader whose plan says so takes the key's lock between
  /// processes. The leaders' transfers are submitted together, so the downloader sees them in
  /// input order.
  /// With a `sink`, the results go there (a prefetch takes them in batches) instead of to
  /// each job's `drive`.
  func start(_ jobs: inout [Job], options: FetchOptions, into sink: (any DownloadSink)? = nil) {
    let starting = jobs.indices.filter { jobs[$0].isToDownload }
    guard !starting.isEmpty else { return }
    do { try cache.prepare() } catch {
      let failure = CacheError.io("cannot create the cache", error)
      for index in starting { jobs[index].state = .done(.failure(failure)) }
      return
    }
    var submitted = [(index: Int, plan: Job.Plan, request: DownloadRequest)]()
    for index in starting {
      guard case .download(let plan) = jobs[index].state else { continue }
      if let plan = lead(&jobs[index], plan: plan, options: options) {
        submitted.append((index, plan, downloadRequest(for: jobs[index], plan: plan)))
      }
    }
    guard !submitted.isEmpty else { return }
    let requests = submitted.map(\.request)
    let tickets = sink.map { downloader.submit(requests, into: $0) } ?? downloader.submit(requests)
    for (ticket, entry) in zip(tickets, submitted) {
      jobs[entry.index].state = .transferring(entry.plan, ticket: ticket)
    }
  }

  /// ``start(_:options:)`` for one job.
  func start(_ job: Job, options: FetchOptions) -> Job {
    var jobs = [job]
    start(&jobs, options: options)
    return jobs[0]
  }

  /// Makes `job` lead its request's flight and hold its key's lock when its plan asks for it;
  /// returns the plan to submit, or nil when the job moved elsewhere (a follower, a waiter,
  /// or served by what another process stored).
  private func lead(_ job: inout Job, plan: Job.Plan, options: FetchOptions) -> Job.Plan? {
    guard let request = job.request else {
      job.state = .done(.failure(CacheError(.invalidInput, "not a URL to download")))
      return nil
    }
    if job.flight == nil {
      let flight = FlightKey(
        key: job.key, url: request.stripped, conditional: plan.validators != nil,
        fingerprint: plan.fingerprint)
      guard flights.join(flight) else {
        job.state = .following(flight)
        return nil
      }
      job.flight = flight
    }
    guard plan.takesLock else { return plan }
    var plan = plan
    plan.takesLock = false
    // Without a lock (an unwritable locks/), the download goes on alone.
    switch Result(catching: { try cache.keyLocks.attempt(key: job.key) }) {
    case .success(nil):
      job.state = .waiting(plan)
      return nil
    case .success(let held?):
      if let hit = servedFromAnotherProcess(key: job.key, file: plan.file, options: options) {
        held.release()
        job.state = .done(.success(.hit(hit)))
        return nil
      }
      job.lock = held
    case .failure: break
    }
    return plan
  }

  /// Stage: a failed transfer. A resume the server refused starts over (once); a revalidation
  /// may fall back on the stale copy (stale-if-error); a permanent failure is recorded.
  func failed(_ job: Job, plan: Job.Plan, error: CacheError, options: FetchOptions) -> Job.State {
    if job.lock != nil && keepsPartial(after: error, key: job.key) == .restart && !plan.restarted {
      var again = plan
      again.restarted = true
      return .download(again)
    }
    if error.isNoSpace && !plan.madeRoom {
      // A full disk: the other kept partial bodies yield to this download, tried once more.
      cache.giveUpPartials(sparing: job.key)
      var again = plan
      again.madeRoom = true
      return .download(again)
    }
    cache.noteFailure(error)
    if let stale = staleCopy(plan.validators, after: error, options: options) {
      return .done(.success(stale))
    }
    if error.isPermanent, let request = job.request {
      try? cache.recordFailure(url: request.stripped, fingerprint: plan.fingerprint, error: error)
    }
    return .done(.failure(error))
  }

  /// Stage: a response. 304 updates the stored entry; a body is checked (an image, the size it
  /// announced, the content its headers name), then stored unless the origin forbids it.
  func received(
    _ job: Job, plan: Job.Plan, response: DownloadResponse, options: FetchOptions
  ) -> Job {
    var job = job
    guard response.status != 304 else {
      job.state = .done(revalidated(key: job.key, with: response))
      return job
    }
    job.bytes = response.bytes
    guard let request = job.request else { return job }
    let url = request.stripped
    var pending: PendingStore
    do {
      pending = try cache.makingRoom(needed: response.bytes + DiskCache.indexRoomPerStore) {
        try BodyCheck.validated(
          response, url: url, key: job.key, options: options,
          temporaryDirectory: cache.layout.tmpPath)
      }
      pending.metadata.shareable = isShareable(request)
      pending.knownFile = plan.file
    } catch {
      let failure = CacheError.io("cannot check the body", error, url: url)
      cache.noteFailure(failure)
      if failure.isPermanent {
        try? cache.recordFailure(url: url, fingerprint: plan.fingerprint, error: failure)
      }
      job.state = .done(.failure(failure))
      return job
    }
    if options.freshness.mode == .http,
      !CacheDirectives(response.freshness.cacheControl).allowsStoring(
        status: response.freshness.status ?? response.status)
    {
      cache.note([.notStored: 1])
      job.state = .done(.success(.notStored(body: pending.temporaryPath)))
    } else {
      job.state = .checked(plan, pending)
    }
    return job
  }

  /// The stored entry of `key` updated after a 304.
  private func revalidated(key: String, with response: DownloadResponse)
    -> Result<FetchOutcome, CacheError>
  {
    let metadata = EntryMetadata(
      etag: response.etag, lastModified: response.lastModified, freshness: response.freshness)
    do {
      guard let entry = try cache.revalidate(key: key, with: metadata) else {
        return .failure(CacheError(.protocolError, "304 Not Modified, but the entry is gone"))
      }
      return .success(.notModified(entry, path: cache.layout.dataPath(entry.file)))
    } catch {
      return .failure(CacheError.io("cannot update the entry", error))
    }
  }

  /// Stage: a checked body moves into `data/` (alone, or in the batcher's next transaction).
  func stored(_ pending: PendingStore, plan: Job.Plan, options: FetchOptions) async -> Job.State {
    stored(await store(pending, alone: options.storesAlone), plan: plan)
  }

  /// Where a store's `result` moves a job: to the write-back, or done with the failure.
  func stored(_ result: Result<CacheEntry, CacheError>, plan: Job.Plan) -> Job.State {
    switch result {
    case .failure(let error):
      cache.noteFailure(error)
      return .done(.failure(error))
    case .success(let entry):
      let path = cache.layout.dataPath(entry.file)
      return .stored(
        plan.validators == nil ? .downloaded(entry, path: path) : .revalidated(entry, path: path))
    }
  }
}

extension Job {
  /// Whether the job waits for the start stage.
  var isToDownload: Bool {
    if case .download = state { return true }
    return false
  }
}
