import AsyncAlgorithms
import Foundation

/// Where a prefetch stands; passed to the progress handler after every URL.
public struct PrefetchProgress: Sendable, Equatable {
  /// URLs finished (any outcome).
  public var done = 0
  /// URLs read so far (the total, once ``inputFinished``).
  public var total = 0
  /// Duplicates skipped.
  public var duplicates = 0
  /// Served from the cache.
  public var hits = 0
  /// Downloaded (including refreshed).
  public var downloaded = 0
  /// Variants derived (an original downloaded for one also counts in ``downloaded``).
  public var derived = 0
  /// Revalidated with 304.
  public var notModified = 0
  /// Offline misses.
  public var misses = 0
  /// Stored copies served because revalidation failed (stale-if-error).
  public var stale = 0
  /// Downloaded but not cached (`no-store`).
  public var notStored = 0
  /// Failed.
  public var failed = 0
  /// Bytes downloaded.
  public var bytes: Int64 = 0
  /// Seconds since the start.
  public var elapsed: TimeInterval = 0
  /// Whether all the input was read.
  public var inputFinished = false

  /// Bytes per second so far.
  public var rate: Double { elapsed > 0 ? Double(bytes) / elapsed : 0 }
}

/// The end of a prefetch.
public struct PrefetchSummary: Sendable {
  /// The final counts.
  public var progress: PrefetchProgress
  /// Every failure, in the order they happened.
  public var failures: [(url: String, error: CacheError)]
  /// URLs read but not finished because of a cancel, then (when asked for) the input left
  /// unread.
  public var unfinished: [String]
  /// Whether the run was cancelled.
  public var cancelled: Bool
  /// Why reading the input stopped early, when it did (a line too long, a read error).
  public var inputError: CacheError?
}

/// One finished URL and where the run stands after it.
public struct PrefetchEvent: Sendable {
  /// The URL's result.
  public var result: FetchResult
  /// The counts after it.
  public var progress: PrefetchProgress
}

/// A prefetch in progress: an asynchronous sequence of one event per URL, with back pressure
/// (a consumer that stops reading holds up new transfers), then its summary. Events travel in
/// batches (the answers of one resolved batch together, each download's alone), so a warm run
/// pays one channel hand-off per batch, not per URL.
public struct PrefetchRun: AsyncSequence, Sendable {
  public typealias Element = PrefetchEvent
  let channel: AsyncChannel<[PrefetchEvent]>
  let task: Task<PrefetchSummary, Never>

  public func makeAsyncIterator() -> Iterator {
    Iterator(batches: channel.makeAsyncIterator(), task: task)
  }

  /// Stops reading input and cancels transfers in flight; events still pending are dropped and
  /// the sequence ends. Safe from any thread or signal handler queue.
  public func cancel() { task.cancel() }

  /// The summary, once the run has ended.
  public var summary: PrefetchSummary { get async { await task.value } }

  /// The events one at a time, in the order they happened.
  public struct Iterator: AsyncIteratorProtocol {
    var batches: AsyncChannel<[PrefetchEvent]>.Iterator
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
  public init(fetcher: Fetcher, batchSize: Int = 256) {
    self.fetcher = fetcher
    self.batchSize = batchSize
  }

  /// Starts fetching every URL `input` yields. With `collectUnread`, a cancelled run reads
  /// what is left of the input (without waiting) into its summary's unfinished list.
  public func start(
    _ input: sending any URLSource, options: FetchOptions, collectUnread: Bool = false
  ) -> PrefetchRun {
    let channel = AsyncChannel<[PrefetchEvent]>()
    let task = Task { [self] in
      var run = RunState()
      await produce(input, into: &run, options: options, channel: channel)
      let summary = run.summary(collecting: collectUnread ? input : nil)
      channel.finish()
      return summary
    }
    return PrefetchRun(channel: channel, task: task)
  }

  private func produce(
    _ input: any URLSource, into run: inout RunState, options: FetchOptions,
    channel: AsyncChannel<[PrefetchEvent]>
  ) async {
    let window = max(4, fetcher.transfer.maxConcurrent * 4)
    let finished = FinishedDownloads()
    await withTaskGroup(of: Void.self) { group in
      var running = 0
      /// Takes what finished (waiting for at least one) and sends it as one batch of events.
      func takeFinished() async {
        let results = await finished.take()
        running -= results.count
        // Their tasks are reaped too: a group keeps every finished child until it is.
        for _ in results { await group.next() }
        await channel.send(results.map { run.record($0) })
      }
      while !Task.isCancelled {
        let batch = run.readBatch(input, size: batchSize)
        if batch.isEmpty { break }
        var answered = [PrefetchEvent]()
        answered.reserveCapacity(batch.count)
        for job in await fetcher.lookUp(batch, options: options) {
          guard !job.isFinished else {
            answered.append(run.record(job.result))
            continue
          }
          if running >= window && !answered.isEmpty {
            // The answers so far go first: events keep the order they were recorded in.
            await channel.send(answered)
            answered = []
          }
          while running >= window { await takeFinished() }
          guard !Task.isCancelled else {
            run.unfinished.append(job.display)
            continue
          }
          running += 1
          // Started here, in input order; only the later stages run in the child task.
          let started = fetcher.start(job, options: options)
          group.addTask { finished.add(await fetcher.drive(started, options: options)) }
        }
        if !answered.isEmpty { await channel.send(answered) }
      }
      while running > 0 { await takeFinished() }
    }
  }
}

/// The counts of one run, owned by its producing task.
private struct RunState {
  let start = Date()
  var progress = PrefetchProgress()
  var failures = [(url: String, error: CacheError)]()
  var unfinished = [String]()
  var seen = Set<KeyDigest>()

  var inputError: CacheError?
  var inputEnded = false

  /// Up to `size` new URLs, waiting only for the first: what else is already there joins the
  /// batch, so a URL starts as soon as its line arrives. Duplicates are counted and dropped.
  mutating func readBatch(_ input: any URLSource, size: Int) -> [String] {
    var batch = [String]()
    while batch.count < size && !inputEnded {
      let item: URLSourceItem
      do {
        item = try input.next(wait: batch.isEmpty)
      } catch {
        inputError = CacheError.io("cannot read the URL list", error)
        inputEnded = true
        break
      }
      switch item {
      case .url(let url):
        progress.total += 1
        if seen.insert(KeyDigest(url)).inserted {
          batch.append(url)
        } else {
          progress.duplicates += 1
          progress.done += 1
        }
      case .notYet: return batch
      case .blank: continue
      case .end: inputEnded = true
      }
    }
    return batch
  }

  /// The summary of the run that ends now; a cancelled run lists what `unread` still holds.
  mutating func summary(collecting unread: (any URLSource)?) -> PrefetchSummary {
    let cancelled = Task.isCancelled
    progress.inputFinished = inputEnded && inputError == nil && !cancelled
    if cancelled, let unread {
      while case .url(let url)? = try? unread.next(wait: false) {
        unfinished.append(CacheKey.redacted(url))
      }
    }
    progress.elapsed = Date().timeIntervalSince(start)
    return PrefetchSummary(
      progress: progress, failures: failures, unfinished: unfinished, cancelled: cancelled,
      inputError: inputError)
  }

  /// Counts `result` and returns the event to send.
  mutating func record(_ result: FetchResult) -> PrefetchEvent {
    progress.done += 1
    progress.bytes += result.bytes
    progress.elapsed = Date().timeIntervalSince(start)
    switch result.outcome {
    case .success(.hit): progress.hits += 1
    case .success(.downloaded), .success(.revalidated): progress.downloaded += 1
    case .success(.derived):
      progress.derived += 1
      // Its original was downloaded for it when bytes came from the network.
      if result.bytes > 0 { progress.downloaded += 1 }
    case .success(.notModified): progress.notModified += 1
    case .success(.offlineMiss): progress.misses += 1
    case .success(.stale): progress.stale += 1
    case .success(.notStored(let body)):
      // A prefetch keeps nothing it may not cache.
      unlink(body)
      progress.notStored += 1
    case .failure(let error) where error.kind == .cancelled:
      unfinished.append(result.url)
    case .failure(let error):
      progress.failed += 1
      failures.append((result.url, error))
    }
    return PrefetchEvent(result: result, progress: progress)
  }
}

/// 128 bits of MD5 of a URL: de-duplicates millions of URLs in little memory.
struct KeyDigest: Hashable {
  let high: UInt64
  let low: UInt64

  init(_ url: String) {
    let bytes = MD5.digest(of: url.utf8)
    high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
    low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
  }
}
