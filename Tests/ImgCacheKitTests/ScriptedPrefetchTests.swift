import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// A prefetch's decisions over the in-process transport: its counts, duplicates, a warm run,
/// and the order transfers are submitted in. No server, no sleep (the transport answers at
/// once); the transport itself (the order its queue starts transfers in, per-host limits) is
/// DownloaderTests' and PrefetcherTests'.
@Suite("A prefetch on a scripted transport", .timeLimit(.minutes(10)))
struct ScriptedPrefetchTests: ScriptedSuite {
  let directory = TemporaryDirectory()

  func prefetcher(_ transport: ScriptedTransport, batchSize: Int = InputBatch.size) -> Prefetcher {
    var transfer = TransferOptions()
    transfer.maxConcurrent = 1
    return Prefetcher(fetcher: fetcher(transport, transfer: transfer), batchSize: batchSize)
  }

  @Test(
    "progress once per URL with done counting up; duplicates fetched once; summary counts (test02, test05)"
  )
  func progress() async {
    let missing = url("missing")
    let transport = ScriptedTransport(
      [missing: [.failure(CacheError(.httpStatus, "HTTP 404", httpStatus: 404))]],
      fallback: .image(png))
    let urls = ["a", "b", "c", "d", "b"].map(url) + [missing]
    let (events, summary) = await prefetcher(transport).runToEnd(urls)
    #expect(events.count == 5)
    #expect(events.map(\.progress.done) == Array(2...6), "the duplicate is done when read")
    #expect(summary.progress.total == 6 && summary.progress.duplicates == 1)
    #expect(summary.progress.downloaded == 4 && summary.progress.failed == 1)
    #expect(summary.failures.first?.error.httpStatus == 404)
    #expect(summary.progress.bytes == 4 * Int64(png.count))
    #expect(transport.requests.count == 5)
  }

  @Test("an empty list finishes at once with zero counts (test03)")
  func empty() async {
    let (events, summary) = await prefetcher(ScriptedTransport(fallback: .image(png))).runToEnd([])
    #expect(events.isEmpty && summary.progress.done == 0 && summary.progress.total == 0)
    #expect(!summary.cancelled && summary.progress.inputFinished)
  }

  @Test("a warm run serves everything from the cache without a request")
  func warm() async {
    let transport = ScriptedTransport(fallback: .image(png))
    let urls = (0..<40).map { url("warm\($0)") }
    let (_, first) = await prefetcher(transport).runToEnd(urls)
    #expect(first.progress.downloaded == 40)
    let (_, second) = await prefetcher(transport).runToEnd(urls)
    #expect(second.progress.hits == 40 && second.progress.downloaded == 0)
    #expect(transport.requests.count == 40)
  }

  @Test("transfers are submitted in input order, whatever order their lookups end in (FIFO)")
  func inputOrder() async {
    let transport = ScriptedTransport(fallback: .image(png))
    let urls = (0..<12).map { url("in\($0)") }
    let (_, summary) = await prefetcher(transport).runToEnd(urls)
    #expect(summary.progress.downloaded == 12)
    #expect(transport.requests.map(\.url) == urls)
  }

  @Test("a batch looked up in parts at once still submits its transfers in input order")
  func inputOrderAcrossParts() async {
    let transport = ScriptedTransport(fallback: .image(png))
    let count = 2 * Fetcher.smallestPart + 8
    let urls = (0..<count).map { url("part\($0)") }
    let (_, summary) = await prefetcher(transport, batchSize: count).runToEnd(urls)
    #expect(summary.progress.downloaded == count)
    #expect(transport.requests.map(\.url) == urls)
  }

  @Test("a consumer that stops reading holds up new transfers (back pressure), and cancel ends it")
  func backPressure() async {
    let transport = ScriptedTransport(fallback: .image(png))
    var transfer = TransferOptions()
    transfer.maxConcurrent = 2
    let prefetcher = Prefetcher(fetcher: fetcher(transport, transfer: transfer))
    let urls = (0..<200).map { url("bp\($0)") }
    let run = prefetcher.start(URLList(urls), options: FetchOptions())
    var iterator = run.makeAsyncIterator()
    _ = await iterator.next()
    // The producer now waits to hand over its next batch: nothing starts until it is taken.
    // At most the window (4 x 2 transfers and a batch of bodies to store) and what the first
    // batch's events held may have run. Without back pressure all 200 go, and the run ends.
    await run.channel.sendWaits()
    let window = 4 * 2 + PrefetchScheduler(transfers: 2, now: .now).storeBatch
    let requested = transport.requests.count
    #expect(requested <= 2 * window && requested < urls.count, "\(requested) requested")
    run.cancel()
    while await iterator.next() != nil {}
    let summary = await run.summary
    #expect(transport.requests.count == requested, "nothing started after the consumer stopped")
    #expect(summary.cancelled)
    #expect(summary.progress.downloaded + summary.unfinished.count == urls.count)
  }
}
