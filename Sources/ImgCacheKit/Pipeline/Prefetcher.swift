import FoundationEssentials
import Glibc

/// A prefetch in progress: an asynchronous sequence of one event per URL, with back pressure
/// (a consumer that stops reading holds up new transfers), then its summary. Events travel in
/// batches (the answers of one resolved batch together, the downloads that finished together
/// together), so a run pays one channel hand-off per batch, not per URL.
public struct PrefetchRun: AsyncSequence, Sendable {
  public typealias Element = PrefetchEvent
  let channel: Rendezvous<[PrefetchEvent]>
  let task: Task<PrefetchSummary, Never>

  public func makeAsyncIterator() -> Iterator {
    Iterator(batches: channel, task: task)
  }

  /// Stops reading input and cancels transfers in flight; events still pending are dropped and
  /// the sequence ends. Safe from any thread or signal handler queue.
  public func cancel() { task.cancel() }

  /// The summary, once the run has ended.
  public var summary: PrefetchSummary { get async { await task.value } }

  /// The events one at a time, in the order they happened.
  public struct Iterator: AsyncIteratorProtocol {
    let batches: Rendezvous<[PrefetchEvent]>
    let task: Task<PrefetchSummary, Never>
    var batch = [PrefetchEvent]()
    var position = 0

    /// The next event; nil once the run has ended or was cancelled.
    public mutating func next() async -> PrefetchEvent? {
      while position == batch.count || task.isCancelled {
        guard !task.isCancelled, let next = await batches.next() else { return nil }
        (batch, position) = (next, 0)
      }
      defer { position += 1 }
      return batch[position]
    }
  }
}

/// Warms the cache from a stream of URLs (SDWebImagePrefetcher): reads lazily, skips
/// duplicates, asks the pipeline to resolve each batch at once (hits, refusals), downloads the
/// rest concurrently, and can be cancelled.
public struct Prefetcher: Sendable {
  /// The pipeline used for every URL.
  public let fetcher: Fetcher
  /// URLs resolved per batch (one index read each).
  public let batchSize: Int

  /// Creates a prefetcher over `fetcher`.
  public init(fetcher: Fetcher, batchSize: Int = InputBatch.size) {
    self.fetcher = fetcher
    self.batchSize = batchSize
  }

  /// Starts fetching every URL `input` yields (of `shard`, when given: the others are counted
  /// and skipped). With a `retryList`, every failure and unfinished URL goes to it as the run
  /// goes, and a cancelled run reads what is left of the input (without waiting) into it.
  /// With `keepsUncachedBodies`, the body of a response not cached (`no-store`) is left for
  /// the events' reader, who deletes it (``FetchResult/discardUncachedBody()``); else the
  /// run deletes it as it goes.
  public func start(
    _ input: sending any URLSource, options: FetchOptions, retryList: RetryList? = nil,
    shard: Shard? = nil, keepsUncachedBodies: Bool = false
  ) -> PrefetchRun {
    let channel = Rendezvous<[PrefetchEvent]>()
    // On the engine's executor: its steps may block briefly (the index, the input's poll).
    let task = Task(executorPreference: EngineExecutor.shared) { [self] in
      var run = RunState(retryList: retryList, shard: shard.map { ($0, options.keyFilter) })
      run.keepsUncachedBodies = keepsUncachedBodies
      await produce(input, into: &run, options: options, channel: channel)
      let summary = run.summary(collecting: retryList != nil ? input : nil)
      channel.finish()
      return summary
    }
    return PrefetchRun(channel: channel, task: task)
  }

  private func produce(
    _ input: any URLSource, into run: inout RunState, options: FetchOptions,
    channel: Rendezvous<[PrefetchEvent]>
  ) async {
    let inbox = FinishedDownloads()
    // A cancel stops the transfers at once, wherever this task is (its children see it too);
    // their cancelled responses are then taken like any other.
    await withTaskCancellationHandler {
      await produce(input, into: &run, options: options, channel: channel, inbox: inbox)
    } onCancel: { [fetcher] in
      fetcher.existingTransport?.cancel(sink: inbox)
    }
  }

  private func produce(
    _ input: any URLSource, into run: inout RunState, options: FetchOptions,
    channel: Rendezvous<[PrefetchEvent]>, inbox: FinishedDownloads
  ) async {
    let rules = fetcher.rules(options)
    var scheduler = PrefetchScheduler(transfers: fetcher.transfer.maxConcurrent, now: .now)
    await withTaskGroup(of: Void.self) { group in
      /// Where a fetch goes by the action it waits for (its state's, unless given): settled (an
      /// event), transferring (kept until its response arrives), or a task of its own for the
      /// actions that wait.
      func hand(
        _ fetch: consuming Fetch, _ action: FetchMachine.Action? = nil,
        into events: inout [PrefetchEvent]
      ) {
        var fetch = fetch  // moved, not copied: a fetch is a dozen references
        let action = action ?? FetchMachine.next(&fetch, rules: rules)
        switch action {
        case .awaitResponse(let ticket): scheduler.transfers[ticket] = fetch
        case .settle:
          let result = fetcher.settle(fetch)
          scheduler.ended(result.url)
          events.append(run.record(result))
        default:
          scheduler.children += 1
          group.addTask { inbox.add(await fetcher.drive(fetch, options: options, action: action)) }
        }
      }

      /// Submits `fetches`' transfers into the inbox. A cancel that came meanwhile cancels them
      /// too: its handler cancels only what was submitted when it ran, and the flag it reads
      /// is set before it runs.
      func startTransfers(_ fetches: inout [Fetch]) {
        fetcher.start(&fetches, options: options, into: inbox)
        if Task.isCancelled { fetcher.existingTransport?.cancel(sink: inbox) }
      }

      /// Starts storing the fetches that wait for it, in one transaction, in a task: unless the
      /// store before is still running (they then join the next one).
      func storeUnstored() {
        guard let fetches = scheduler.takeStore() else { return }
        group.addTask { inbox.add(stored: await fetcher.store(checked: fetches, options: options)) }
      }

      /// Takes what arrived (with `waiting`, waiting for something) and moves it on, as one
      /// batch of events.
      func takeArrivals(waiting: Bool = true) async {
        if waiting && scheduler.storeIsDue(now: .now, inputEnded: run.inputEnded)
          && !inbox.hasArrivals
        {
          storeUnstored()
        }
        let arrivals =
          waiting ? await inbox.take(before: scheduler.storeDeadline) : inbox.takeNow()
        var events = [PrefetchEvent]()
        // Their tasks are reaped too: a group keeps every finished child until it is.
        for result in arrivals.results {
          await group.next()
          scheduler.children -= 1
          scheduler.ended(result.url)
          events.append(run.record(result))
        }
        for fetches in arrivals.stored {
          await group.next()
          scheduler.storeEnded()
          for fetch in fetches { hand(fetch, into: &events) }
        }
        // The loop only handed over "a partial started": written before anything deletes it.
        if arrivals.responses.contains(where: { scheduler.transfers[$0.ticket]?.lock != nil }) {
          fetcher.cache.flushPartialRecords()
        }
        var checked = [Fetch]()
        var restarted = [Fetch]()
        for (ticket, response) in arrivals.responses {
          guard var fetch = scheduler.transfers.removeValue(forKey: ticket) else {
            // Every ticket is in `transfers` before anything is taken; a stray body is not kept.
            assertionFailure("a response for ticket \(ticket), which no fetch holds")
            if case .success(let stray) = response, let file = stray.file { unlink(file) }
            continue
          }
          let action = fetcher.advance(
            &fetch, on: .responded(response), rules: rules, options: options)
          switch action {
          case .store: checked.append(consume fetch)
          case .submit: restarted.append(consume fetch)
          default: hand(consume fetch, action, into: &events)
          }
        }
        scheduler.await(store: checked, now: .now)
        if scheduler.storeIsDue(now: .now, inputEnded: run.inputEnded) { storeUnstored() }
        if !restarted.isEmpty {
          startTransfers(&restarted)
          for fetch in restarted { hand(fetch, into: &events) }
        }
        if !events.isEmpty { await channel.send(events) }
      }

      /// Starts what the scheduler admits of `next` (after the fetches it parked for their hosts,
      /// which come first); false when it admitted nothing. Nothing once the run is cancelled:
      /// a transfer submitted after the cancel handler ran would never be cancelled.
      func startAdmitted(_ next: inout ArraySlice<Fetch>, into events: inout [PrefetchEvent])
        -> Bool
      {
        guard !Task.isCancelled else { return false }
        var starting = scheduler.admit(&next)
        guard !starting.isEmpty else { return false }
        startTransfers(&starting)
        for fetch in starting { hand(fetch, into: &events) }
        return true
      }

      /// Starts the parked fetches whose hosts have room again.
      func startParked() async {
        guard scheduler.hasParked else { return }
        scheduler.heldBack = fetcher.existingTransport?.heldBack ?? 0
        var none = [Fetch]()[...]
        var started = [PrefetchEvent]()
        _ = startAdmitted(&none, into: &started)
        if !started.isEmpty { await channel.send(started) }
      }

      while !Task.isCancelled {
        // What finished goes to the store before more input is read, however fast the input
        // comes (the window counts it until it is stored and its lock let go).
        if inbox.hasArrivals { await takeArrivals(waiting: false) }
        storeUnstored()
        await startParked()
        // With work outstanding, a wait for input also ends when something arrives.
        let busy = scheduler.isBusy
        let mayWait = !busy || inbox.watch()
        let batch = run.readBatch(
          input, size: batchSize, wait: mayWait, wake: busy ? inbox.wake : nil)
        if busy { inbox.stopWatching() }
        if batch.isEmpty {
          // The input has ended (parked fetches are the final loop's, which waits for room).
          if run.inputEnded || (!busy && !scheduler.hasParked) { break }
          await takeArrivals(waiting: !mayWait && inbox.wake == nil)
          continue
        }
        var answered = [PrefetchEvent]()
        answered.reserveCapacity(batch.count)
        var open = [Fetch]()
        for fetch in await fetcher.lookUpOnCores(batch, options: options) {
          if fetch.isFinished {
            answered.append(run.record(fetch.result))
          } else {
            open.append(fetch)
          }
        }
        var next = open[...]
        while !next.isEmpty {
          scheduler.heldBack = fetcher.existingTransport?.heldBack ?? 0
          guard scheduler.room > 0 else {
            // The answers so far go first: events keep the order they were recorded in.
            if !answered.isEmpty { await channel.send(answered) }
            answered = []
            await takeArrivals()
            continue
          }
          guard !Task.isCancelled else {
            for fetch in next { run.noteUnfinished(fetch.display) }
            break
          }
          // Started here, in input order, as many as the scheduler admits; when it admits none
          // (its hosts' parked fetches are as many as it keeps), something must end first.
          if !startAdmitted(&next, into: &answered) && !next.isEmpty {
            if !answered.isEmpty { await channel.send(answered) }
            answered = []
            await takeArrivals()
          }
        }
        if !answered.isEmpty { await channel.send(answered) }
      }
      while scheduler.hasWork || scheduler.hasParked {
        if Task.isCancelled {
          for fetch in scheduler.takeParked() { run.noteUnfinished(fetch.display) }
        }
        await startParked()
        if scheduler.hasWork { await takeArrivals() }
      }
    }
  }
}
