import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCachePipeline
@testable import ImgCacheSupport

@Suite("Prefetcher (SDWebImagePrefetcherTests)", .serialized)
struct PrefetcherTests {
  let servers = TestServers.shared
  let directory = TemporaryDirectory()

  func prefetcher(_ change: (inout TransferOptions) -> Void = { _ in }) -> Prefetcher {
    Prefetcher(
      fetcher: Fetcher(cache: DiskCache(directory: directory.url), transfer: fastTransfer(change)))
  }

  @Test(
    "cancel stops in-flight transfers, removes their temp files, keeps what completed (test06, test07)"
  )
  func cancel() async throws {
    // No idle timeout within the test: on a loaded test process the cancel may come late, and
    // the slow transfers must end by it, not as stall errors.
    let prefetcher = prefetcher {
      $0.maxConcurrent = 2
      $0.idleTimeout = 30
    }
    let urls =
      [servers.fault("/image/base.png?id=quick")]
      + (0..<6).map { servers.fault("/image/base.png?delay=15&id=slow\($0)") }
    let started = Date()
    let run = prefetcher.start(URLList(urls), options: FetchOptions())
    let cache = prefetcher.fetcher.cache
    // Cancelled from a dispatch queue once the quick one is stored, as the signal handler
    // does: not from a task, which a loaded test process's cooperative pool may run late. The
    // slow ones take 15 s, past the 10 s this waits at most: under the full suite's load the
    // quick one's store once came after a 5 s delay had run out.
    let cancelled = Mutex<Date?>(nil)
    DispatchQueue.global().async {
      for _ in 0..<1_000 where (try? cache.totals().entries) != 1 { usleep(10_000) }
      cancelled.withLock { $0 = Date() }
      run.cancel()
    }
    for await _ in run {}
    let summary = await run.summary
    // Measured from the cancel to the run's end as the run itself timed it (its elapsed time,
    // on the engine's executor: this test's own task may be run late by a loaded test
    // process's pool; once, 22 s late). Uncancelled, the slow transfers would run on for
    // seconds and end as stall errors, which the counts below would show.
    let ended = started.addingTimeInterval(summary.progress.elapsed)
    let since = cancelled.withLock { $0 }.map { ended.timeIntervalSince($0) }
    #expect(since.map { $0 < 8 } == true, "ended \(String(describing: since)) s after the cancel")
    #expect(summary.cancelled)
    #expect(summary.progress.downloaded == 1)
    #expect(summary.unfinished.count == 6)
    #expect(summary.failures.isEmpty)
    #expect(try cache.totals().entries == 1)
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
  }

  @Test("the per-host limit holds while the global limit allows more")
  func perHost() async {
    let prefetcher = prefetcher {
      $0.maxConcurrent = 6
      $0.maxPerHost = 2
    }
    let urls = (0..<8).map { servers.fault("/image/base.png?delay=0.3&g=host&id=\($0)") }
    let (_, summary) = await prefetcher.runToEnd(urls)
    #expect(summary.progress.downloaded == 8)
    #expect((servers.stats()?.groups["host"]?["max_active"] ?? 99) <= 2)
  }

  @Test("a cancelled run saves the unread input past one 'nothing yet' (a drained pipe's answer)")
  func unreadAfterNotYet() async throws {
    let source = ScriptedSource([.notYet, .url("http://a.example/1"), .url("http://a.example/2")])
    let folder = TemporaryDirectory("imgcache-retry")
    let retryList = try RetryList(path: folder.path + "/retry.txt")
    let run = prefetcher().start(source, options: FetchOptions(), retryList: retryList)
    run.cancel()
    for await _ in run {}
    let summary = await run.summary
    #expect(summary.cancelled)
    #expect(summary.unfinished == ["http://a.example/1", "http://a.example/2"])
    try retryList.finish()
    let saved = try String(contentsOfFile: folder.path + "/retry.txt", encoding: .utf8)
    #expect(saved == "http://a.example/1\nhttp://a.example/2\n", "streamed to the list")
  }
}
