import Foundation

/// Stores completed downloads in batches on one serial queue: the downloader's loop hands a
/// body over and goes on, and whatever completes while a batch commits goes into the next one
/// transaction.
final class StoreQueue: @unchecked Sendable {
  typealias Completion = @Sendable (Result<CacheEntry, CacheError>) -> Void

  private let cache: DiskCache
  private let queue = DispatchQueue(label: "imgcache.store")
  private let lock = NSLock()
  private var pending = [(PendingStore, Completion)]()
  private var draining = false

  init(cache: DiskCache) { self.cache = cache }

  /// Queues `item`; `completion` runs on the store queue once its transaction committed.
  func enqueue(_ item: PendingStore, completion: @escaping Completion) {
    lock.lock()
    pending.append((item, completion))
    let start = !draining
    draining = true
    lock.unlock()
    if start { queue.async { self.drain() } }
  }

  private func drain() {
    while true {
      lock.lock()
      let batch = pending
      pending.removeAll()
      if batch.isEmpty { draining = false }
      lock.unlock()
      if batch.isEmpty { return }
      let results: [Result<CacheEntry, CacheError>]
      do {
        results = try cache.store(batch.map(\.0))
      } catch {
        let failure = CacheError.io("cannot store downloads", error)
        for (item, _) in batch { unlink(item.temporaryPath) }
        results = Array(repeating: .failure(failure), count: batch.count)
      }
      for ((_, completion), result) in zip(batch, results) { completion(result) }
    }
  }
}
