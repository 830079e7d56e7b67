import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheStorage
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// A prefetch of a table's rows (`--verify-hash`, `--caption-col`) on the scripted transport:
/// each row's digest checked before its body is stored, its notes handed back with its result.
@Suite("A prefetch checks each row's digest", .timeLimit(.minutes(10)))
struct ScriptedDigestTests: ScriptedSuite {
  let directory = TemporaryDirectory()

  /// The results of a prefetch of `items`, by URL.
  func prefetch(_ items: [URLSourceItem], on fetcher: Fetcher) async -> [String: FetchResult] {
    let run = Prefetcher(fetcher: fetcher).start(URLList(items: items), options: FetchOptions())
    var results = [String: FetchResult]()
    for await event in run { results[event.result.url] = event.result }
    _ = await run.summary
    return results
  }

  @Test("a body that differs is never stored (and not held against its URL); a match is stored")
  func downloadsChecked() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    let wrong = String(repeating: "0", count: 64)
    let results = await prefetch(
      [
        .row(url("good"), RowNotes(digest: .init(.sha256, hex: SHA256.hex(of: png)), caption: "a")),
        .row(url("bad"), RowNotes(digest: .init(.sha256, hex: wrong), caption: "b")),
        .row(url("md5"), RowNotes(digest: .init(.md5, hex: MD5.hex(of: png)))),
        .row(url("bad5"), RowNotes(digest: .init(.md5, hex: String(wrong.prefix(32))))),
        .url(url("plain")),
      ], on: fetcher)
    #expect(results[url("good")]?.outcome.path != nil)
    #expect(results[url("good")]?.notes?.caption == "a")
    #expect(results[url("bad")]?.outcome.error?.kind == .digestMismatch)
    #expect(results[url("bad")]?.notes?.caption == "b")
    #expect(results[url("md5")]?.outcome.path != nil)
    #expect(results[url("bad5")]?.outcome.error?.kind == .digestMismatch)
    #expect(results[url("plain")]?.outcome.path != nil && results[url("plain")]?.notes == nil)
    let stored = try fetcher.cache.storedEntries(forKeys: [url("bad"), url("bad5"), url("good")])
    #expect(stored.map(\.key) == [url("good")])
    let leftovers = try FileManager.default.contentsOfDirectory(
      atPath: fetcher.cache.layout.tmpPath)
    #expect(leftovers.isEmpty, "refused bodies left behind: \(leftovers)")
    // Another table may name that body: the URL is not on the failed list.
    #expect(await fetcher.fetch(url("bad")).outcome.path != nil)
  }

  @Test("a stored copy that differs is refused for the row, stays cached, and is not asked for")
  func storedCopiesChecked() async throws {
    let transport = ScriptedTransport(fallback: .image(png))
    let fetcher = fetcher(transport)
    _ = await fetcher.fetch(url("kept"))
    let asked = transport.requests.count
    let wrong = String(repeating: "0", count: 64)
    let results = await prefetch(
      [
        .row(url("kept"), RowNotes(digest: .init(.sha256, hex: wrong)))
      ], on: fetcher)
    #expect(results[url("kept")]?.outcome.error?.kind == .digestMismatch)
    #expect(try fetcher.cache.storedEntries(forKeys: [url("kept")]).count == 1)
    let matching = await prefetch(
      [.row(url("kept"), RowNotes(digest: .init(.md5, hex: MD5.hex(of: png))))], on: fetcher)
    guard case .success(.hit) = matching[url("kept")]?.outcome else {
      Issue.record("a matching copy not served: \(String(describing: matching[url("kept")]))")
      return
    }
    #expect(transport.requests.count == asked)
  }
}
