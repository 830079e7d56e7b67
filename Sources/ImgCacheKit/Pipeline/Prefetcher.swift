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
  /// URLs started but not finished because of a cancel.
  public var unfinished: [String]
  /// Whether the run was cancelled.
  public var cancelled: Bool
}

/// Warms the cache from a stream of URLs (SDWebImagePrefetcher): reads lazily, skips duplicates
/// and cached URLs in batches, downloads the rest concurrently, and can be cancelled.
public final class Prefetcher: @unchecked Sendable {
  /// The pipeline used for every URL.
  public let fetcher: Fetcher
  /// URLs looked up in the index per transaction.
  public var batchSize = 256
  private let lock = NSLock()
  private var cancelled = false
  private var progress = PrefetchProgress()
  private var failures = [(url: String, error: CacheError)]()
  private var pending = Set<String>()
  private var seen = Set<KeyDigest>()

  /// Creates a prefetcher over `fetcher`.
  public init(fetcher: Fetcher) { self.fetcher = fetcher }

  /// Stops reading input and cancels transfers in flight; safe from any thread.
  public func cancel() {
    lock.lock()
    cancelled = true
    lock.unlock()
    fetcher.downloader.cancelAll()
  }

  private var isCancelled: Bool {
    lock.lock()
    defer { lock.unlock() }
    return cancelled
  }

  /// Fetches every URL `input` yields; `onResult` and `onProgress` are called once per URL,
  /// never concurrently. Returns when all are done or the run was cancelled.
  public func run(
    _ input: AnyIterator<String>, options: FetchOptions,
    onResult: @escaping @Sendable (FetchResult) -> Void = { _ in },
    onProgress: @escaping @Sendable (PrefetchProgress) -> Void = { _ in }
  ) -> PrefetchSummary {
    let start = Date()
    let window = DispatchSemaphore(value: max(4, fetcher.downloader.options.maxConcurrent * 4))
    let group = DispatchGroup()
    let report = { (result: FetchResult) in
      self.lock.lock()
      self.record(result, since: start)
      let snapshot = self.progress
      onResult(result)
      onProgress(snapshot)
      self.lock.unlock()
    }
    while !isCancelled {
      let batch = readBatch(input)
      if batch.isEmpty { break }
      let triaged = triage(batch, options: options, report: report)
      for (url, key) in triaged ?? batch.map({ ($0, options.key(for: $0)) }) {
        window.wait()
        if isCancelled {
          window.signal()
          break
        }
        group.enter()
        lock.lock()
        pending.insert(url)
        lock.unlock()
        let completion: Fetcher.Completion = { result in
          self.lock.lock()
          self.pending.remove(url)
          self.lock.unlock()
          report(result)
          window.signal()
          group.leave()
        }
        if triaged == nil {
          fetcher.fetch(url, options: options, completion: completion)
        } else {
          fetcher.fetchUncached(url, key: key, options: options, completion: completion)
        }
      }
    }
    lock.lock()
    progress.inputFinished = !cancelled
    lock.unlock()
    group.wait()
    lock.lock()
    defer { lock.unlock() }
    progress.elapsed = Date().timeIntervalSince(start)
    let unfinished = failures.filter { $0.error.kind == .cancelled }.map(\.url) + pending.sorted()
    return PrefetchSummary(
      progress: progress, failures: failures.filter { $0.error.kind != .cancelled },
      unfinished: unfinished, cancelled: cancelled)
  }

  /// Up to `batchSize` new URLs (duplicates are counted and dropped).
  private func readBatch(_ input: AnyIterator<String>) -> [String] {
    var batch = [String]()
    while batch.count < batchSize, let url = input.next() {
      let digest = KeyDigest(url)
      lock.lock()
      progress.total += 1
      let fresh = seen.insert(digest).inserted
      if !fresh {
        progress.duplicates += 1
        progress.done += 1
      }
      lock.unlock()
      if fresh { batch.append(url) }
    }
    return batch
  }

  /// Reports the cached and the blacklisted URLs of `batch` (one index read and one touch for
  /// all) and returns the others, which need the network, with their keys.
  private func triage(
    _ batch: [String], options: FetchOptions, report: (FetchResult) -> Void
  ) -> [(url: String, key: String)]? {
    guard options.mode == .normal, !options.retryFailed else { return nil }
    let cache = fetcher.cache
    let keys = batch.map { options.key(for: $0) }
    guard let hits = try? cache.lookupLocal(keys: keys),
      let failed = try? cache.failures(of: batch, ttl: options.failedTTL)
    else { return nil }
    var served = [FetchResult]()
    var rest = [(url: String, key: String)]()
    for (url, key) in zip(batch, keys) {
      if let failure = failed[url] {
        let error = RequestURL.blacklisted(failure, ttl: options.failedTTL)
        served.append(FetchResult(url: url, key: key, outcome: .failure(error), bytes: 0))
      } else if let hit = hits[key] ?? cache.lookupReadOnly(key: key) {
        served.append(FetchResult(url: url, key: key, outcome: .success(.hit(hit)), bytes: 0))
      } else {
        rest.append((url, key))
      }
    }
    let touched = served.compactMap { result -> String? in
      if case .success(.hit(.local)) = result.outcome { return result.key }
      return nil
    }
    if options.touch { _ = try? cache.touch(keys: touched) }
    for result in served { report(result) }
    return rest
  }

  private func record(_ result: FetchResult, since start: Date) {
    progress.done += 1
    progress.bytes += result.bytes
    progress.elapsed = Date().timeIntervalSince(start)
    switch result.outcome {
    case .success(.hit): progress.hits += 1
    case .success(.downloaded), .success(.revalidated): progress.downloaded += 1
    case .success(.notModified): progress.notModified += 1
    case .success(.offlineMiss): progress.misses += 1
    case .failure(let error):
      progress.failed += 1
      failures.append((result.url, error))
    }
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
