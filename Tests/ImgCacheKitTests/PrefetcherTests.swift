import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

@Suite("Prefetcher (SDWebImagePrefetcherTests)", .serialized)
struct PrefetcherTests {
  let servers = TestServers.shared
  let directory = TemporaryDirectory()

  func prefetcher(_ change: (inout TransferOptions) -> Void = { _ in }) -> Prefetcher {
    Prefetcher(
      fetcher: Fetcher(cache: DiskCache(directory: directory.url), transfer: fastTransfer(change)))
  }

  @Test(
    "progress once per URL with done counting up; duplicates fetched once; summary counts (test02, test05)"
  )
  func progress() {
    let names = ["base.jpg", "base.png", "base.gif", "lossy.webp", "base.png"]
    let urls = names.map { servers.nginx($0) } + [servers.fault("/status/404?id=pf")]
    let events = Collector<PrefetchProgress>()
    let results = Collector<FetchResult>()
    let summary = prefetcher().run(
      AnyIterator(urls.makeIterator()), options: FetchOptions(), onResult: { results.add($0) },
      onProgress: { events.add($0) })
    #expect(results.all.count == 5)
    #expect(
      events.all.map(\.done).sorted() == Array(2...6)
        || events.all.map(\.done) == (2...6).map { $0 })
    #expect(summary.progress.total == 6)
    #expect(summary.progress.duplicates == 1)
    #expect(summary.progress.downloaded == 4)
    #expect(summary.progress.failed == 1)
    #expect(summary.failures.first?.error.httpStatus == 404)
    #expect(summary.progress.bytes > 0)
    #expect(summary.progress.inputFinished)
  }

  @Test("an empty list finishes at once with zero counts (test03)")
  func empty() {
    let summary = prefetcher().run(AnyIterator([String]().makeIterator()), options: FetchOptions())
    #expect(summary.progress.done == 0 && summary.progress.total == 0 && !summary.cancelled)
  }

  @Test("a warm run serves everything from the cache without a request")
  func warm() {
    let run = UUID().uuidString.prefix(8)
    let urls = (0..<40).map { servers.fault("/image/base.png?id=warm\(run)-\($0)") }
    let first = prefetcher().run(AnyIterator(urls.makeIterator()), options: FetchOptions())
    #expect(first.progress.downloaded == 40)
    let second = prefetcher().run(AnyIterator(urls.makeIterator()), options: FetchOptions())
    #expect(second.progress.hits == 40)
    #expect(second.progress.downloaded == 0)
    #expect((servers.stats()?.requests.keys.filter { $0.contains("warm\(run)") }.count ?? 0) == 40)
  }

  @Test(
    "cancel stops in-flight transfers, removes their temp files, keeps what completed (test06, test07)"
  )
  func cancel() throws {
    let prefetcher = prefetcher { $0.maxConcurrent = 2 }
    let urls =
      [servers.fault("/image/base.png?id=quick")]
      + (0..<6).map { servers.fault("/image/base.png?delay=5&id=slow\($0)") }
    let results = Collector<FetchResult>()
    DispatchQueue.global().asyncAfter(deadline: .now() + 1) { prefetcher.cancel() }
    let started = Date()
    let summary = prefetcher.run(
      AnyIterator(urls.makeIterator()), options: FetchOptions(), onResult: { results.add($0) })
    #expect(Date().timeIntervalSince(started) < 4)
    #expect(summary.cancelled)
    #expect(summary.progress.downloaded == 1)
    #expect(summary.unfinished.count == 6)
    #expect(summary.failures.isEmpty)
    let cache = prefetcher.fetcher.cache
    #expect(try cache.totals().entries == 1)
    #expect(DirectoryListing.names(in: cache.layout.tmpDirectory.path).isEmpty)
  }

  @Test("the per-host limit holds while the global limit allows more")
  func perHost() {
    let prefetcher = prefetcher {
      $0.maxConcurrent = 6
      $0.maxPerHost = 2
    }
    let urls = (0..<8).map { servers.fault("/image/base.png?delay=0.3&g=host&id=\($0)") }
    let summary = prefetcher.run(AnyIterator(urls.makeIterator()), options: FetchOptions())
    #expect(summary.progress.downloaded == 8)
    #expect((servers.stats()?.groups["host"]?["max_active"] ?? 99) <= 2)
  }
}
