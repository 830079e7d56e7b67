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
  /// Revalidated with 304.
  public var notModified = 0
  /// Offline misses.
  public var misses = 0
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
  /// URLs read but not finished because of a cancel, then the input left unread.
  public var unfinished: [String]
  /// Whether the run was cancelled.
  public var cancelled: Bool
}

/// One finished URL and where the run stands after it.
public struct PrefetchEvent: Sendable {
  /// The URL's result.
  public var result: FetchResult
  /// The counts after it.
  public var progress: PrefetchProgress
}

/// A prefetch in progress: an asynchronous sequence of one event per URL, with back pressure
/// (a consumer that stops reading holds up new transfers), then its summary.
public struct PrefetchRun: AsyncSequence, Sendable {
  public typealias Element = PrefetchEvent
  let channel: AsyncChannel<PrefetchEvent>
  let task: Task<PrefetchSummary, Never>

  public func makeAsyncIterator() -> AsyncChannel<PrefetchEvent>.Iterator {
    channel.makeAsyncIterator()
  }

  /// Stops reading input and cancels transfers in flight; events still pending are dropped and
  /// the sequence ends. Safe from any thread or signal handler queue.
  public func cancel() { task.cancel() }

  /// The summary, once the run has ended.
  public var summary: PrefetchSummary { get async { await task.value } }
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

  /// Starts fetching every URL `input` yields.
  public func start(_ input: sending AnyIterator<String>, options: FetchOptions) -> PrefetchRun {
    let channel = AsyncChannel<PrefetchEvent>()
    let task = Task { [self] in
      var input = input
      let summary = await produce(&input, options: options, channel: channel)
      channel.finish()
      return summary
    }
    return PrefetchRun(channel: channel, task: task)
  }

  private func produce(
    _ input: inout AnyIterator<String>, options: FetchOptions,
    channel: AsyncChannel<PrefetchEvent>
  ) async -> PrefetchSummary {
    var run = RunState()
    let window = max(4, fetcher.downloader.options.maxConcurrent * 4)
    await withTaskGroup(of: FetchResult.self) { group in
      var running = 0
      while !Task.isCancelled {
        let batch = run.readBatch(&input, size: batchSize)
        if batch.isEmpty { break }
        for resolution in await fetcher.resolve(batch, options: options) {
          switch resolution {
          case .answered(let result):
            await channel.send(run.record(result))
          case .download(let download):
            while running >= window, let result = await group.next() {
              running -= 1
              await channel.send(run.record(result))
            }
            guard !Task.isCancelled else {
              run.unfinished.append(download.url)
              continue
            }
            running += 1
            // Started here, in input order; only the waiting happens in the child task.
            let started = fetcher.start([download], options: options)[0]
            group.addTask { await fetcher.finish(started, options: options) }
          }
        }
      }
      for await result in group { await channel.send(run.record(result)) }
    }
    let cancelled = Task.isCancelled
    run.progress.inputFinished = !cancelled
    if cancelled { while let url = input.next() { run.unfinished.append(url) } }
    run.progress.elapsed = Date().timeIntervalSince(run.start)
    return PrefetchSummary(
      progress: run.progress, failures: run.failures, unfinished: run.unfinished,
      cancelled: cancelled)
  }
}

/// The counts of one run, owned by its producing task.
private struct RunState {
  let start = Date()
  var progress = PrefetchProgress()
  var failures = [(url: String, error: CacheError)]()
  var unfinished = [String]()
  var seen = Set<KeyDigest>()

  /// Up to `size` new URLs (duplicates are counted and dropped).
  mutating func readBatch(_ input: inout AnyIterator<String>, size: Int) -> [String] {
    var batch = [String]()
    while batch.count < size, let url = input.next() {
      progress.total += 1
      if seen.insert(KeyDigest(url)).inserted {
        batch.append(url)
      } else {
        progress.duplicates += 1
        progress.done += 1
      }
    }
    return batch
  }

  /// Counts `result` and returns the event to send.
  mutating func record(_ result: FetchResult) -> PrefetchEvent {
    progress.done += 1
    progress.bytes += result.bytes
    progress.elapsed = Date().timeIntervalSince(start)
    switch result.outcome {
    case .success(.hit): progress.hits += 1
    case .success(.downloaded), .success(.revalidated): progress.downloaded += 1
    case .success(.notModified): progress.notModified += 1
    case .success(.offlineMiss): progress.misses += 1
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
