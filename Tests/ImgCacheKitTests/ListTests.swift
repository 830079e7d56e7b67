import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

@Suite("list pages: keyset pagination over ties, every order, both directions")
struct ListTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()

  /// 50 entries whose sizes take 5 values and whose use times take 4: ties everywhere.
  func makeCache() throws -> DiskCache {
    let cache = DiskCache(directory: directory.url, now: clock.function)
    for i in 0..<50 {
      try store(cache, "https://l.example/\(i).png", [UInt8](repeating: 1, count: 10 + i % 5))
      if i % 13 == 0 { clock.advance(60) }
    }
    return cache
  }

  /// Every entry, walked `limit` at a time.
  func walk(_ cache: DiskCache, _ order: EntryOrder, reverse: Bool, limit: Int = 7) throws
    -> [CacheEntry]
  {
    var all = [CacheEntry]()
    var cursor: EntryCursor?
    repeat {
      let page = try cache.entries(
        matching: EntryFilter(), order: order, reverse: reverse, after: cursor, limit: limit)
      #expect(page.entries.count <= limit)
      all += page.entries
      cursor = page.next
    } while cursor != nil
    return all
  }

  @Test("each order lists every entry exactly once, sorted, across pages that split ties")
  func everyOrder() throws {
    let cache = try makeCache()
    let keys: (CacheEntry) -> [String] = { [$0.key] }
    for order in EntryOrder.allCases {
      for reverse in [false, true] {
        let listed = try walk(cache, order, reverse: reverse)
        #expect(listed.count == 50, "\(order) reverse \(reverse)")
        #expect(Set(listed.flatMap(keys)).count == 50, "\(order) reverse \(reverse): duplicates")
        let values: [Double] = listed.map {
          switch order {
          case .access: $0.lastAccess.timeIntervalSince1970
          case .size: Double($0.size)
          case .created: $0.created.timeIntervalSince1970
          case .hits: Double($0.accessCount)
          case .url, .stored: 0
          }
        }
        #expect(values == (reverse ? values.sorted(by: >) : values.sorted()), "\(order)")
        if order == .url {
          let urls = listed.map(\.url)
          #expect(urls == (reverse ? urls.sorted(by: >) : urls.sorted()))
        }
      }
    }
  }

  @Test("filters combine; a page ends early exactly when nothing follows")
  func filters() throws {
    let cache = try makeCache()
    var filter = EntryFilter()
    filter.urlGlob = "https://l.example/1*"
    filter.largerThan = 11
    let listed = try walk(cache, .size, reverse: false, limit: 2)
    #expect(listed.count == 50)
    let matching = try cache.entries(matching: filter, order: .url, limit: 100)
    #expect(matching.next == nil)
    #expect(matching.entries.allSatisfy { $0.url.hasPrefix("https://l.example/1") && $0.size > 11 })
    #expect(
      matching.entries.count
        == [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19].filter { $0 % 5 >= 2 }.count)
    let exact = try cache.entries(matching: EntryFilter(), order: .access, limit: 50)
    #expect(exact.entries.count == 50 && exact.next != nil)
    let after = try cache.entries(
      matching: EntryFilter(), order: .access, after: exact.next, limit: 50)
    #expect(after.entries.isEmpty && after.next == nil)
  }
}
