import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// The pipeline over an in-process transport: its flights, failure records, `no-store`, and a
/// prefetch's window, stores and cancel, with replies held on a clock the test moves. No
/// server, no sleep: a test that waits for the clock waits on an event, never on time. (The time
/// limit only catches a hang: in the full suite, every test may wait a minute or more for the
/// cooperative pool while the shared servers start.)
@Suite("The pipeline on a scripted transport", .timeLimit(.minutes(10)))
struct ScriptedPipelineTests: ScriptedSuite {
  let directory = TemporaryDirectory()

  /// The name of a result's outcome ("downloaded", "hit", …), or its error's kind.
  func outcome(_ result: FetchResult) -> String {
    switch result.outcome {
    case .success(let outcome): outcome.name
    case .failure(let error): error.kind.rawValue
    }
  }

  @Test("two callers of one URL in a batch: one request, the follower served the leader's result")
  func oneFlight() async throws {
    let transport = ScriptedTransport(fallback: .image(png, after: .seconds(1)))
    let fetcher = fetcher(transport)
    async let results = fetcher.fetch([url("a"), url("a")])
    // Held until the clock moves: both jobs have started by the time the one request is in.
    await transport.waitForRequests(1)
    transport.advance(by: .seconds(1))
    let (first, second) = try await (#require(results.first), #require(results.last))
    #expect(transport.requests.count == 1)
    #expect(outcome(first) == "downloaded" && outcome(second) == "downloaded")
    let paths = [first, second].map { try? $0.outcome.get().path }
    #expect(paths[0] != nil && paths[0] == paths[1])
    #expect(try fetcher.cache.totals().entries == 1)
  }

  @Test("50 callers of one URL at once: one request, every caller served (coalescing)")
  func fiftyCallers() async {
    let transport = ScriptedTransport(fallback: .image(png, after: .seconds(1)))
    let fetcher = fetcher(transport)
    let target = url("coalesced")
    let results = await withTaskGroup(of: FetchResult.self) { group in
      for _ in 0..<50 { group.addTask { await fetcher.fetch(target) } }
      // Held until the clock moves; a caller that comes after finds the stored body.
      await transport.waitForRequests(1)
      transport.advance(by: .seconds(1))
      return await group.reduce(into: [FetchResult]()) { $0.append($1) }
    }
    #expect(results.count == 50)
    #expect(results.allSatisfy { $0.outcome.path != nil })
    #expect(transport.requests.count == 1)
  }

  @Test(
    "a permanent failure is recorded and refuses the URL without a request; a transient one is not")
  func failureRecords() async throws {
    let transport = ScriptedTransport(
      [
        url("gone"): [.failure(CacheError(.httpStatus, "404 Not Found", httpStatus: 404))],
        url("busy"): [.failure(CacheError(.httpStatus, "503", httpStatus: 503))],
      ], fallback: .image(png))
    let fetcher = fetcher(transport)
    for _ in 0..<2 {
      #expect(await fetcher.fetch(url("gone")).outcome.error?.httpStatus == 404)
      #expect(await fetcher.fetch(url("busy")).outcome.error?.httpStatus == 503)
    }
    let asked = transport.requests.map(\.url)
    #expect(asked == [url("gone"), url("busy"), url("busy")])
    #expect(await fetcher.fetch(url("gone")).outcome.error?.kind == .blacklisted)
  }

  @Test("freshness = http: a no-store body is handed over, not stored")
  func noStore() async throws {
    var reply = ScriptedTransport.Reply.image(png)
    reply.cacheControl = "no-store"
    let fetcher = fetcher(ScriptedTransport(fallback: reply))
    var options = FetchOptions()
    options.freshness.mode = .http
    let result = await fetcher.fetch(url("private"), options: options)
    guard case .success(.notStored(let body)) = result.outcome else {
      Issue.record("stored: \(result.outcome)")
      return
    }
    #expect(FileManager.default.fileExists(atPath: body))
    #expect(try fetcher.cache.totals().entries == 0)
    unlink(body)
  }

  @Test(
    "a fetch and a prefetch take their steps on the engine's executor, not the cooperative pool")
  func engineExecutor() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    _ = await fetcher.fetch(url("one"))
    _ = await fetcher.fetch([url("two"), url("three")])
    let run = Prefetcher(fetcher: fetcher).start(
      URLList((0..<3).map { url("p\($0)") }), options: FetchOptions())
    for await _ in run {}
    // Each step that may block (the index, a lock attempt, a body's check) runs where
    // submits do: on `imgcache.engine`, whose threads may block.
    #expect(transport.submittedOn.count == 3)
    #expect(transport.submittedOn.allSatisfy { $0 }, "\(transport.submittedOn)")
  }

  @Test(
    "a finished download waits the store delay at most to be stored with others, not for the rest")
  func storedWhileOthersTransfer() async throws {
    let slow = (0..<8).map { url("slow\($0)") }
    let transport = ScriptedTransport(
      Dictionary(uniqueKeysWithValues: slow.map { ($0, [.image(png, after: .seconds(3600))]) }),
      fallback: .image(png))
    var transfer = TransferOptions()
    transfer.maxConcurrent = 1
    let cache = DiskCache(directory: directory.url)
    let clock = ManualClock()
    let prefetcher = Prefetcher(
      fetcher: fetcher(transport, cache: cache, transfer: transfer), clock: clock)
    // One transfer slot, a window of 4 and more jobs than it holds, input left open: the loop
    // waits for arrivals with the quick body unstored and slow ones in flight (held until the
    // transport's clock moves an hour, which it never does). That wait's timer is the store's
    // deadline: the prefetch's clock is moved there and the timer fired, by hand.
    let ended = EndFlag()
    let run = prefetcher.start(
      OpenSource([url("quick")] + slow, ended: ended), options: FetchOptions())
    var events = run.makeAsyncIterator()
    await clock.waitFor(1)
    #expect(try cache.totals().entries == 0, "not stored before its delay")
    clock.advance(by: PrefetchScheduler(transfers: 1, now: clock.now()).storeDelay)
    clock.fireAll()
    var quick: PrefetchEvent?
    while quick == nil, let event = await events.next() {
      if event.result.url == url("quick") { quick = event }
    }
    #expect(quick.map { outcome($0.result) } == "downloaded")
    #expect(!ended.isSet, "stored while the input was open")
    run.cancel()
    while await events.next() != nil {}
    let summary = await run.summary
    #expect(summary.cancelled && summary.progress.downloaded == 1)
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
  }

  @Test("a prefetch admits four jobs a transfer slot; the next start when replies arrive")
  func window() async throws {
    let transport = ScriptedTransport(fallback: .image(png, after: .seconds(1)))
    var transfer = TransferOptions()
    transfer.maxConcurrent = 2
    let prefetcher = Prefetcher(
      fetcher: fetcher(transport, transfer: transfer))
    let urls = (0..<40).map { url("w\($0)") }
    let run = prefetcher.start(URLList(urls), options: FetchOptions())
    let events = Task {
      var count = 0
      for await _ in run { count += 1 }
      return count
    }
    // Each round, the window's eight are submitted and no more until their replies arrive.
    for round in 1...5 {
      await transport.waitForRequests(round * 8)
      #expect(transport.requests.count == round * 8, "round \(round)")
      transport.advance(by: .seconds(1))
    }
    #expect(await events.value == 40)
    #expect(await run.summary.progress.downloaded == 40)
  }
}
