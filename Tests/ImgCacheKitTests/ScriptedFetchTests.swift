import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheStorage
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// The pipeline's decisions about what a body is and where a lookup ends, over the in-process
/// transport: the bytes decide a body's format, `--any`, the failed-URL list before the cache,
/// read-only directories before the network. No server, no sleep.
@Suite("A fetch on a scripted transport", .timeLimit(.minutes(10)))
struct ScriptedFetchTests: ScriptedSuite {
  let directory = TemporaryDirectory()

  typealias Reply = ScriptedTransport.Reply

  @Test("a valid image with a wrong Content-Type is stored: the bytes decide")
  func wrongContentType() async throws {
    var reply = ScriptedTransport.Reply.image(png)
    reply.contentType = "text/plain"
    let result = await fetcher(ScriptedTransport(fallback: reply)).fetch(url("typed"))
    guard case .downloaded(let entry, _) = try result.outcome.get() else {
      Issue.record("\(result.outcome)")
      return
    }
    #expect(entry.format == "png" && entry.contentType == "text/plain")
  }

  @Test("--any stores a non-image body; without it the body is refused")
  func anyBody() async throws {
    var reply = ScriptedTransport.Reply.image(Data("<html>not an image</html>".utf8))
    reply.contentType = "text/html"
    let fetcher = fetcher(ScriptedTransport(fallback: reply))
    #expect(await fetcher.fetch(url("page")).outcome.error?.kind == .notAnImage)
    var options = FetchOptions()
    options.acceptAnyBody = true
    let result = await fetcher.fetch(url("page"), options: options)
    guard case .downloaded(let entry, _) = try result.outcome.get() else {
      Issue.record("\(result.outcome)")
      return
    }
    #expect(entry.format == nil)
  }

  @Test("the failed-URL list comes before the cache; --retry-failed ignores it, success clears it")
  func failedBeforeCache() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    let url = url("black")
    _ = await fetcher.fetch(url)
    let fingerprint = fetcher.fingerprint(FetchOptions())
    try fetcher.cache.recordFailure(
      url: url, fingerprint: fingerprint, error: CacheError(.notAnImage, "was html"))
    #expect(await fetcher.fetch(url).outcome.error?.kind == .blacklisted)
    var options = FetchOptions()
    options.retryFailed = true
    #expect(await fetcher.fetch(url, options: options).outcome.path != nil)
    #expect(try fetcher.cache.failure(url: url) == nil)
    try fetcher.cache.recordFailure(
      url: url, fingerprint: fingerprint, error: CacheError(.notAnImage, "was html"))
    var shortTTL = FetchOptions()
    shortTTL.failedTTL = 0
    #expect(await fetcher.fetch(url, options: shortTTL).outcome.path != nil)
    #expect(transport.requests.count == 1, "every later answer came from the cache")
  }

  @Test("in one batch, a refused URL's cached copy is neither served nor used; the others hit")
  func refusedInBatch() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    let (refused, served) = (url("black-batch"), url("served-batch"))
    _ = await fetcher.fetch([refused, served])
    try fetcher.cache.recordFailure(
      url: refused, fingerprint: fetcher.fingerprint(FetchOptions()),
      error: CacheError(.notAnImage, "was html"))
    let results = await fetcher.fetch([refused, served])
    #expect(results[0].outcome.error?.kind == .blacklisted)
    guard case .hit(.local) = try results[1].outcome.get() else {
      Issue.record("the other URL should hit")
      return
    }
    fetcher.cache.close()
    let used = try fetcher.cache.storedEntries(forKeys: [refused, served])
    #expect(used.map(\.accessCount) == [0, 1])
    #expect(transport.requests.count == 2)
  }

  @Test("read-only directories are searched before the network")
  func readOnly() async throws {
    let extra = TemporaryDirectory("ro")
    let url = url("ro")
    _ = try extra.write(CacheKey.fileName(for: url), [UInt8](png))
    let transport = ScriptedTransport(fallback: .image(png))
    guard
      case .hit(.readOnly) = try await fetcher(transport, readOnly: [extra.url]).fetch(url)
        .outcome.get()
    else {
      Issue.record("expected a read-only hit")
      return
    }
    #expect(transport.requests.isEmpty)
  }

  @Test("refresh: a 304 keeps the entry and updates it, a 200 replaces it (ManagerTests 07, #3589)")
  func refresh() async throws {
    let url = url("etag")
    let gif = Data(Fixtures.bytes("base.gif"))
    let replies: [ScriptedTransport.Reply] = [
      Reply(body: png, etag: "\"1\""), Reply(status: 304, body: Data(), etag: "\"1\""),
      Reply(body: gif, contentType: "image/gif", etag: "\"2\""),
      Reply(status: 304, body: Data(), etag: "\"2\""),
    ]
    let transport = ScriptedTransport([url: replies], fallback: .image(png))
    let fetcher = fetcher(transport)
    guard case .downloaded = try await fetcher.fetch(url).outcome.get() else {
      Issue.record("the first fetch downloads"); return
    }
    var options = FetchOptions()
    options.mode = .refresh
    guard
      case .notModified(let kept, _) = try await fetcher.fetch(url, options: options).outcome.get()
    else { Issue.record("the same ETag gives 304"); return }
    #expect(kept.etag == "\"1\"" && kept.format == "png")
    guard
      case .revalidated(let replaced, let path) = try await fetcher.fetch(url, options: options)
        .outcome.get()
    else { Issue.record("a new ETag replaces the entry"); return }
    #expect(replaced.etag == "\"2\"" && replaced.format == "gif")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == gif)
    // Twice in a row works too (ManagerTests 07).
    guard case .notModified = try await fetcher.fetch(url, options: options).outcome.get() else {
      Issue.record("a second refresh gives 304"); return
    }
    // Each refresh asked with the stored entry's validator.
    #expect(transport.requests.map(\.etag) == [nil, "\"1\"", "\"1\"", "\"2\""])
  }

  @Test(
    "offline: a hit, or a distinct miss without a request (ManagerTests 15); reload always downloads"
  )
  func offlineAndReload() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    let url = url("offline")
    var options = FetchOptions()
    options.mode = .offline
    #expect(try await fetcher.fetch(url, options: options).outcome.get() == .offlineMiss)
    #expect(transport.requests.isEmpty)
    _ = await fetcher.fetch(url)
    guard case .hit = try await fetcher.fetch(url, options: options).outcome.get() else {
      Issue.record("offline hits what is stored"); return
    }
    options.mode = .reload
    guard case .downloaded = try await fetcher.fetch(url, options: options).outcome.get() else {
      Issue.record("reload downloads"); return
    }
    #expect(transport.requests.count == 2)
  }
}
