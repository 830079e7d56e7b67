import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// Uses of entries wait in memory for the next write: a stream of hits writes once per
/// ``PendingWrites/maxUses`` hits (or second), not once each.
@Suite("Hits batched: the LRU uses of a stream of hits")
struct PendingUsesTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()

  /// What another process sees: a second cache object with its own connections.
  private func accessCounts(_ urls: [String]) throws -> [Int] {
    let other = DiskCache(directory: directory.url)
    defer { other.close() }
    return try urls.map { try other.entry(forKey: $0)?.accessCount ?? -1 }
  }

  @Test("hits are written when many, at close, before a listing; this process sees them at once")
  func batched() throws {
    let cache = DiskCache(directory: directory.url, now: clock.function)
    let urls = (0..<3).map { "https://a.example/\($0).png" }
    for url in urls { _ = try store(cache, url) }
    clock.advance(60)
    for _ in 0..<5 { _ = try cache.hits(forKeys: urls, touch: true) }
    #expect(try accessCounts(urls) == [0, 0, 0], "15 uses wait in memory")
    #expect(try cache.entry(forKey: urls[0])?.accessCount == 5)
    #expect(try cache.entry(forKey: urls[0])?.lastAccess == clock.now)
    let page = try cache.entries(matching: EntryFilter(), order: .access, limit: 10)
    #expect(page.entries.map(\.accessCount) == [5, 5, 5], "a listing writes them first")
    #expect(try accessCounts(urls) == [5, 5, 5])

    // Many uses are written without waiting for the close.
    let many = (0..<PendingWrites.maxUses).map { "https://b.example/\($0).png" }
    for url in many { _ = try store(cache, url) }
    for url in many.dropLast() { _ = try cache.hits(forKeys: [url], touch: true) }
    #expect(try accessCounts([many[0]]) == [0])
    _ = try cache.hits(forKeys: [many[many.count - 1]], touch: true)
    #expect(try accessCounts([many[0], many[many.count - 1]]) == [1, 1])

    _ = try cache.hits(forKeys: [urls[1]], touch: true)
    #expect(try accessCounts([urls[1]]) == [5])
    cache.close()
    #expect(try accessCounts([urls[1]]) == [6], "the close writes what waits")
    let stats = try DiskCache(directory: directory.url).statistics()
    #expect(stats[.hitsLocal] == Int64(5 * 3 + many.count + 1))
  }
}
