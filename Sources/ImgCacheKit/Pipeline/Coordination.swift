import FoundationEssentials
import Glibc
import Synchronization

/// What makes two downloads the same: one transfer serves every caller with the same key.
struct FlightKey: Hashable, Sendable {
  /// The cache key.
  var key: String
  /// The URL requested.
  var url: String
  /// Whether this is a conditional refresh (its outcome differs from a plain download).
  var conditional: Bool
  /// The fingerprint of the request's outcome-changing options.
  var fingerprint: String

  /// Hashes the cache key alone: the flights of one key are few, and the URL and the
  /// fingerprint (a hundred bytes more, four hashes a download) cost more to hash than they
  /// spread. `==` still compares every field.
  func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// Stores completed downloads (or variants just derived) in batches: whatever completes while
/// a batch commits goes into the next transaction, so a prefetch's or an export's index writes
/// stay few however many transfers and derivations run.
actor StoreBatcher {
  typealias Waiter = CheckedContinuation<Result<CacheEntry, CacheError>, Never>

  private let cache: DiskCache
  /// What a body and the bodies are, for messages, and the counters they are counted under.
  private let what: (one: String, many: String)
  private let counters: (stored: Counter, bytes: Counter)
  private var pending = [(item: PendingStore, waiter: Waiter)]()
  private var draining = false

  /// A batcher of downloads, or of other bodies (`what`) counted under `counters`.
  init(
    cache: DiskCache, what: (one: String, many: String) = ("the download", "downloads"),
    counting counters: (stored: Counter, bytes: Counter) = (.downloads, .bytesDownloaded)
  ) {
    self.cache = cache
    self.what = what
    self.counters = counters
  }

  /// How many waiting bodies end the gathering at once, and how long it lasts at most.
  static let gatherTarget = 64
  static let gatherTime = Duration.milliseconds(1)

  /// Stores `item` (its temporary file moves into `data/`): `alone`, as a batch of one (a
  /// single fetch: no actor, no gathering), else through the batcher, which gathers a
  /// stream's bodies into few transactions.
  nonisolated func store(_ item: PendingStore, alone: Bool) async -> Result<
    CacheEntry, CacheError
  > {
    guard alone else { return await store(item) }
    return await Self.store([item], in: cache, what: what.one, counting: counters)[0]
  }

  /// Stores `item` (its temporary file moves into `data/`) and returns its entry.
  func store(_ item: PendingStore) async -> Result<CacheEntry, CacheError> {
    await withCheckedContinuation { waiter in
      pending.append((item, waiter))
      if !draining {
        draining = true
        // Not a child task: a batch being committed finishes even if its callers are cancelled.
        Task(executorPreference: EngineExecutor.shared) { await self.drain() }
      }
    }
  }

  private func drain() async {
    var gathering = false
    while !pending.isEmpty {
      // Bodies that arrived while a batch committed come in a stream (a prefetch): gather
      // for a millisecond, so one transaction takes many of them instead of one or two. A
      // lone store (a fetch) never waits.
      if gathering && pending.count < Self.gatherTarget {
        try? await Task.sleep(for: Self.gatherTime)
      }
      gathering = true
      let batch = pending
      pending.removeAll()
      let results = await Self.store(
        batch.map(\.item), in: cache, what: what.many, counting: counters)
      for (entry, result) in zip(batch, results) { entry.waiter.resume(returning: result) }
    }
    draining = false
  }

  /// Stores `items` (`what`, for messages) in one transaction on the store queue (the one
  /// store path: a lone download, a batch of them, a variant), counted under `counters`; one
  /// result each (a failed transaction fails them all, their temporary files removed).
  static func store(
    _ items: [PendingStore], in cache: DiskCache, what: String = "downloads",
    counting counters: (stored: Counter, bytes: Counter) = (.downloads, .bytesDownloaded)
  ) async -> [Result<CacheEntry, CacheError>] {
    do {
      let results = try await Blocking.store { try cache.store(items, counting: counters) }
      guard results.count == items.count else {
        throw CacheError(.localIO, "\(results.count) results for \(items.count) bodies")
      }
      return results
    } catch {
      for item in items { unlink(item.temporaryPath) }
      let failure = CacheError.io("cannot store \(what)", error)
      return Array(repeating: .failure(failure), count: items.count)
    }
  }
}

/// The fingerprint of the options that can change a request's outcome (docs/design.md, Cache
/// semantics): a failure recorded under one fingerprint does not refuse a request with another.
/// Credentials enter only through the hash.
enum RequestFingerprint {
  static func of(_ transfer: TransferOptions, acceptAnyBody: Bool, urlCredentials: String?)
    -> String
  {
    let parts = [
      "user=\(transfer.credentials ?? urlCredentials ?? "")",
      "netrc=\(transfer.useNetrc) \(transfer.netrcFile ?? "")",
      "headers=\(transfer.headers.joined(separator: "\n"))",
      "agent=\(transfer.userAgent)",
      "cacert=\(transfer.caFile ?? "")",
      "insecure=\(transfer.insecure)",
      "max-size=\(transfer.maxBodySize)",
      "max-redirects=\(transfer.maxRedirects)",
      "any=\(acceptAnyBody)",
    ]
    return String(SHA256.hex(of: parts.joined(separator: "\u{0}").utf8).prefix(32))
  }
}
