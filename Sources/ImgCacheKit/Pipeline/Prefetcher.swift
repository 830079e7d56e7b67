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
  /// The time its decisions are taken on, and the timers of its waits.
  let clock: any PrefetchClock

  /// Creates a prefetcher over `fetcher`.
  public init(fetcher: Fetcher, batchSize: Int = InputBatch.size) {
    self.init(fetcher: fetcher, batchSize: batchSize, clock: SystemPrefetchClock())
  }

  /// Creates a prefetcher over `fetcher` whose time is `clock`'s (a test's, moved by hand).
  init(fetcher: Fetcher, batchSize: Int = InputBatch.size, clock: any PrefetchClock) {
    self.fetcher = fetcher
    self.batchSize = batchSize
    self.clock = clock
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
    let inbox = FinishedDownloads(clock: clock)
    // A cancel stops the transfers at once, wherever this task is (its children see it too);
    // their cancelled responses are then taken like any other.
    await withTaskCancellationHandler {
      await produce(input, into: &run, options: options, channel: channel, inbox: inbox)
    } onCancel: { [fetcher] in
      fetcher.existingTransport?.cancel(sink: inbox)
    }
  }

  /// Performs what the run's ``PrefetchMachine`` decides, one action at a time, and feeds it
  /// what came of each (docs/architecture.md, The prefetch loop).
  private func produce(
    _ input: any URLSource, into run: inout RunState, options: FetchOptions,
    channel: Rendezvous<[PrefetchEvent]>, inbox: FinishedDownloads
  ) async {
    let rules = fetcher.rules(options)
    var machine = PrefetchMachine(
      run: run, rules: rules, transfers: fetcher.transfer.maxConcurrent, batchSize: batchSize,
      canWake: inbox.wake != nil, now: clock.now())
    defer { run = machine.run }
    await withTaskGroup(of: Void.self) { group in
      while true {
        switch machine.next(facts) {
        case .read(let wanted, let wait):
          let (items, waited) = read(input, upTo: wanted, wait: wait, inbox: inbox)
          machine.inputRead(items, waited: waited)
        case .lookUp(let urls):
          machine.lookedUp(await fetcher.lookUpOnCores(urls, options: options))
        case .submit(var fetches):
          submit(&fetches, options: options, inbox: inbox)
          machine.submitted(fetches)
        case .settle(let fetches): machine.settled(fetches.map(fetcher.settle))
        case .spawn(let fetch, let action):
          group.addTask { inbox.add(await fetcher.drive(fetch, options: options, action: action)) }
        case .store(let fetches):
          group.addTask {
            inbox.add(stored: await fetcher.store(checked: fetches, options: options))
          }
        case .advance(let responses):
          fetcher.writePartialRecords(before: responses.lazy.map(\.fetch))
          machine.advanced(responses.map { advance($0, rules: rules, options: options) })
        case .discard(let file): unlink(file)
        case .send(let events): await channel.send(events)
        case .take(let wait, let deadline):
          let arrivals = wait ? await inbox.take(before: deadline) : inbox.takeNow()
          // Their tasks are reaped too: a group keeps every finished child until it is.
          for _ in 0..<(arrivals.results.count + arrivals.stored.count) { await group.next() }
          machine.arrived(arrivals, now: clock.now())
        case .finish: return
        }
      }
    }
  }

  /// What the input holds, up to `wanted` items, waiting as `wait` says; and whether the read
  /// could wait (an `untilArrival` read cannot when something arrived already).
  private func read(
    _ input: any URLSource, upTo wanted: Int, wait: PrefetchMachine.ReadWait,
    inbox: FinishedDownloads
  ) -> (Result<[URLSourceItem], any Error>, waited: Bool) {
    let waits = wait == .untilArrival ? inbox.watch() : wait == .block
    let items = Result { try input.available(upTo: wanted, wait: waits, wake: inbox.wake) }
    if wait == .untilArrival { inbox.stopWatching() }
    return (items, waits)
  }

  /// Starts `fetches`' transfers into the inbox. A cancel that came meanwhile cancels them too:
  /// its handler cancels only what was submitted when it ran, and the flag it reads is set
  /// before it runs.
  private func submit(_ fetches: inout [Fetch], options: FetchOptions, inbox: FinishedDownloads) {
    fetcher.start(&fetches, options: options, into: inbox)
    if Task.isCancelled { fetcher.existingTransport?.cancel(sink: inbox) }
  }

  /// The facts the machine's next step is taken on.
  private var facts: PrefetchMachine.Facts {
    PrefetchMachine.Facts(
      now: clock.now(), cancelled: Task.isCancelled,
      heldBack: fetcher.existingTransport?.heldBack ?? 0)
  }

  /// `response` fed to its fetch, with the action the fetch then waits for.
  private func advance(
    _ response: PrefetchMachine.Response, rules: FetchMachine.Rules, options: FetchOptions
  ) -> (fetch: Fetch, action: FetchMachine.Action) {
    var fetch = response.fetch
    let action = fetcher.advance(
      &fetch, on: .responded(response.result), rules: rules, options: options)
    return (fetch, action)
  }
}
