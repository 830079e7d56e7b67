import FoundationEssentials

/// The counts of one run, owned by its producing task.
struct RunState {
  let start = Date()
  var progress = PrefetchProgress()
  var failures = [(url: String, error: CacheError)]()
  var disallowed = [(url: String, error: CacheError)]()
  var failureCount = 0
  var failureKinds = Set<CacheError.Kind>()
  var unfinished = [String]()
  var unfinishedCount = 0
  var seen = RecentDigests()
  /// Where every failure and unfinished URL goes as it happens, when the run keeps a list.
  let retryList: RetryList?
  /// The part of the list this run takes (`--shard K/N`), and how keys are made for it.
  let shard: (shard: Shard, filter: KeyFilter)?
  /// Whether the body of a response not cached is left for the events' reader.
  var keepsUncachedBodies = false

  init(retryList: RetryList? = nil, shard: (shard: Shard, filter: KeyFilter)? = nil) {
    self.retryList = retryList
    self.shard = shard
  }

  /// Notes a URL the run did not finish.
  mutating func noteUnfinished(_ url: String) {
    unfinishedCount += 1
    if unfinished.count < PrefetchSummary.kept { unfinished.append(url) }
    retryList?.add(unfinished: url)
  }

  /// Notes a failure.
  mutating func noteFailure(_ url: String, _ error: CacheError) {
    failureCount += 1
    failureKinds.insert(error.kind)
    if failures.count < PrefetchSummary.kept { failures.append((url, error)) }
    retryList?.add(url, failure: error)
  }

  var inputError: CacheError?
  var inputEnded = false

  /// Takes the URLs of `items` into `batch`: duplicates and other shards' URLs are counted and
  /// dropped, the input's end noted.
  mutating func collect(_ items: [URLSourceItem], into batch: inout [ListedURL]) {
    for item in items {
      if item == .end { inputEnded = true }
      guard let listed = item.listed else { continue }
      let url = listed.url
      progress.total += 1
      if let (shard, filter) = shard,
        !shard.contains(key: CacheKey.key(for: url, filter: filter))
      {
        progress.otherShards += 1
        progress.done += 1
      } else if seen.insert(KeyDigest(key: url)) {
        batch.append(listed)
      } else {
        progress.duplicates += 1
        progress.done += 1
      }
    }
  }

  /// The summary of the run that ends now; a cancelled run lists what `unread` still holds.
  mutating func summary(collecting unread: (any URLSource)?) -> PrefetchSummary {
    let cancelled = Task.isCancelled
    progress.inputFinished = inputEnded && inputError == nil && !cancelled
    if cancelled, let unread { collectUnread(unread) }
    progress.elapsed = Date().timeIntervalSince(start)
    var summary = PrefetchSummary(
      progress: progress, failures: failures, unfinished: unfinished, cancelled: cancelled,
      inputError: inputError)
    (summary.failureCount, summary.failureKinds) = (failureCount, failureKinds)
    summary.disallowed = disallowed
    summary.unfinishedCount = unfinishedCount
    return summary
  }

  /// Appends what `unread` holds now to the unfinished list, without waiting: it ends at the
  /// input's end, a read error, or the second "nothing yet" in a row (the first may only mean
  /// the source skipped asking the kernel again after draining it).
  private mutating func collectUnread(_ unread: any URLSource) {
    var idle = 0
    while idle < 2, let item = try? unread.next(wait: false) {
      switch item {
      case .url(let url), .row(let url, _):
        idle = 0
        // Another shard's URL is another machine's to list.
        if let (shard, filter) = shard,
          !shard.contains(key: CacheKey.key(for: url, filter: filter))
        {
          continue
        }
        noteUnfinished(CacheKey.redacted(url))
      case .notYet: idle += 1
      case .blank: continue
      case .end: return
      }
    }
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
    case .success(.notStored):
      // A prefetch keeps nothing it may not cache: the machine deletes it, unless the reader
      // keeps it (an export reads it first, then deletes it).
      progress.notStored += 1
    case .failure(let error) where error.kind == .cancelled:
      noteUnfinished(result.url)
    case .failure(let error) where error.kind == .disallowed:
      progress.disallowed += 1
      failureKinds.insert(error.kind)
      if disallowed.count < PrefetchSummary.kept { disallowed.append((result.url, error)) }
      retryList?.add(disallowed: error)
    case .failure(let error):
      progress.failed += 1
      noteFailure(result.url, error)
    }
    return PrefetchEvent(result: result, progress: progress)
  }
}

/// The URLs a prefetch read last, to drop their duplicates: a bounded window, so that a list
/// of a hundred million lines takes the same memory as one of a thousand (about 3 MiB). A
/// duplicate within the last ``capacity`` distinct URLs is counted and dropped; one further
/// apart is looked up again, an index read that finds it stored (a hit) or recorded as failed,
/// and is never downloaded twice in one run unless it failed.
package struct RecentDigests {
  /// How many distinct URLs are remembered.
  static let capacity = 65_536

  /// An empty window.
  package init() {}

  private var set = Set<KeyDigest>(minimumCapacity: capacity)
  private var ring = [KeyDigest]()
  private var next = 0

  /// Remembers `digest`; false when it is among the last ``capacity`` remembered.
  package mutating func insert(_ digest: KeyDigest) -> Bool {
    guard set.insert(digest).inserted else { return false }
    if ring.count < Self.capacity {
      ring.append(digest)
    } else {
      set.remove(ring[next])
      ring[next] = digest
      next = (next + 1) % Self.capacity
    }
    return true
  }
}
