import FoundationEssentials

/// The download side of the owner: a batch's transfers started together, and the I/O behind
/// the machine's lock, check and revalidate actions (``FetchMachine`` decides; this performs).
extension Fetcher {
  /// Starts the fetches to download: each joins its request's flight (one transfer per request in
  /// flight in this process) and, when its plan says so, takes the key's lock between
  /// processes; the leaders' transfers are submitted together, so the downloader sees them in
  /// input order. With a `sink`, the results go there (a prefetch takes them in batches)
  /// instead of to each fetch's `drive`. Each fetch comes back in a state whose next action it
  /// waits for (``FetchMachine/next(_:rules:)``).
  func start(_ fetches: inout [Fetch], options: FetchOptions, into sink: (any DownloadSink)? = nil)
  {
    let starting = fetches.indices.filter { fetches[$0].isToDownload }
    guard !starting.isEmpty else { return }
    let rules = rules(options)
    do { try cache.prepare() } catch {
      // The machine's event for a transfer that could not be submitted: each is done with it.
      let failure = Result<DownloadResponse, CacheError>.failure(
        CacheError.io("cannot create the cache", error))
      for index in starting {
        _ = FetchMachine.handle(.responded(failure), for: &fetches[index], rules: rules)
      }
      return
    }
    var submitted = [(index: Int, request: DownloadRequest)]()
    for index in starting {
      let action = performingNow(
        FetchMachine.next(&fetches[index], rules: rules), &fetches[index], rules, options)
      if case .submit(let plan) = action {
        submitted.append((index, downloadRequest(for: fetches[index], plan: plan)))
      }
    }
    guard !submitted.isEmpty else { return }
    let requests = submitted.map(\.request)
    let tickets = sink.map { transport.submit(requests, into: $0) } ?? transport.submit(requests)
    for (ticket, entry) in zip(tickets, submitted) {
      _ = FetchMachine.handle(.submitted(ticket: ticket), for: &fetches[entry.index], rules: rules)
    }
  }

  /// What trying `fetch`'s key lock finds; holding it, what another process stored since the
  /// lookup. Without a lock (an unwritable locks/), the download goes on alone.
  func lockAttempt(for fetch: Fetch, plan: Fetch.Plan, options: FetchOptions)
    -> FetchMachine.LockAttempt
  {
    switch Result(catching: { try cache.keyLocks.attempt(key: fetch.key) }) {
    case .success(nil): return .busy
    case .success(let held?):
      guard let hit = servedFromAnotherProcess(key: fetch.key, file: plan.file, options: options)
      else { return fleetLock(fetch, holding: held, options: options) }
      held.release()
      return .storedMeanwhile(hit)
    case .failure: return .unavailable
    }
  }

  /// A body checked (an image, the size it announced, the content its headers name) into a
  /// store for `file`, marked shareable when the request could be anyone's; a failure names
  /// the URL.
  func checked(_ response: DownloadResponse, for fetch: Fetch, file: String, options: FetchOptions)
    -> Result<PendingStore, CacheError>
  {
    guard let request = fetch.request else {
      return .failure(CacheError(.invalidInput, "not a URL to download"))
    }
    let url = request.stripped
    do {
      var pending = try cache.makingRoom(needed: response.bytes + DiskCache.indexRoomPerStore) {
        try BodyCheck.validated(
          response, url: url, key: fetch.key, options: options,
          temporaryDirectory: cache.layout.tmpPath)
      }
      pending.metadata.shareable = isShareable(request)
      pending.knownFile = file
      return .success(pending)
    } catch {
      return .failure(CacheError.io("cannot check the body", error, url: url))
    }
  }

  /// The stored entry of `key` updated after a 304.
  func revalidated(key: String, with response: DownloadResponse)
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
}

extension Fetch {
  /// Whether the fetch waits for the start stage.
  var isToDownload: Bool {
    if case .download = state { return true }
    return false
  }
}
