import Foundation
import GRDB
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheKit

/// A prefetch stores in a task of its own while it goes on taking responses: what waits to be
/// stored stays bounded even when the store cannot commit.
@Suite("Prefetch stores beside its transfers", .serialized)
struct PrefetchStoreTests {
  let servers = TestServers.shared
  let directory = TemporaryDirectory()

  @Test("bodies checked while a store waits for another process's write count against the window")
  func blockedStoreHoldsTheWindow() async throws {
    let cache = DiskCache(directory: directory.url)
    let fetcher = Fetcher(cache: cache, transfer: fastTransfer { $0.maxConcurrent = 2 })
    let tag = "held" + UUID().uuidString.prefix(6)
    #expect(await fetcher.fetch(servers.nginx("base.png?\(tag)=first")).outcome.path != nil)
    // Another connection holds the write lock while a thread of its own (not the cooperative
    // pool, which other suites may keep busy) counts the bodies in tmp/ (each waiting to be
    // stored has its file there): until the count has stood still for a second, at most 20 s
    // (the index's busy timeout is 60).
    let holder = try DatabaseQueue(path: directory.path + "/index.sqlite")
    let peak = Peak()
    let tmp = cache.layout.tmpPath
    let held = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    let holding = Thread {
      try? holder.writeWithoutTransaction { db in
        try db.beginTransaction(.immediate)
        held.signal()
        var (last, still) = (-1, 0)
        for _ in 0..<200 where still < 10 || last <= 0 {
          Thread.sleep(forTimeInterval: 0.1)
          let waiting =
            (try? FileManager.default.contentsOfDirectory(atPath: tmp))?
            .filter { $0.hasPrefix("part-") }.count ?? 0
          (last, still) = (waiting, waiting == last ? still + 1 : 0)
          peak.note(waiting)
        }
        try db.rollback()
      }
      ended.signal()
    }
    holding.start()
    while held.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(10)) }
    let urls = (0..<120).map { servers.nginx("base.png?\(tag)=\($0)") }
    let run = Prefetcher(fetcher: fetcher).start(URLList(urls), options: FetchOptions())
    let consumer = Task { for await _ in run {} }
    while ended.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(50)) }
    // At most the window (four a slot) and one store's batch, however long the lock is held.
    let bound = 4 * 2 + Prefetcher.storeBatch
    let seen = peak.value
    await consumer.value
    let summary = await run.summary
    #expect(seen <= bound, "\(seen) bodies waited in tmp/ (bound \(bound))")
    #expect(seen > 0, "the store never waited: the test saw nothing")
    #expect(
      summary.progress.downloaded == 120,
      "\(summary.failures.prefix(3).map { "\($0.url): \($0.error.message)" })")
  }
}

/// The largest count seen, from any thread.
private final class Peak: Sendable {
  private let most = Mutex(0)
  func note(_ count: Int) { most.withLock { $0 = max($0, count) } }
  var value: Int { most.withLock { $0 } }
}
