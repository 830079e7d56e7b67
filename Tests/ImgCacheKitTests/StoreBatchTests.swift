import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCachePipeline
@testable import ImgCacheRemote
@testable import ImgCacheStorage
@testable import ImgCacheSupport
@testable import ImgCacheTransport

@Suite("a batch of stores: each body placed in data/ before its row is written")
struct StoreBatchTests {
  let directory = TemporaryDirectory()

  @Test(
    "a body that cannot be placed leaves no row, count or total; the others of its batch are stored"
  )
  func unplaceableBody() throws {
    let cache = DiskCache(directory: directory.url)
    let urls = ["a", "b", "c"].map { "https://batch.example/\($0).png" }
    let bodies = [10, 200, 3_000].map { [UInt8](repeating: 7, count: $0) }
    // Failure records of every URL: a stored URL's are forgotten, in its row's transaction.
    for url in urls {
      try cache.recordFailure(url: url, error: CacheError(.notAnImage, "earlier"))
    }
    let items = try zip(urls, bodies).map { url, body in
      PendingStore(
        temporaryPath: try temporaryBody(cache, body), key: CacheKey.key(for: url), url: url,
        metadata: EntryMetadata())
    }
    // A folder with a file in it where the second body goes: the rename into data/ fails.
    let blocked = cache.layout.dataPath(items[1].file)
    try FileManager.default.createDirectory(
      atPath: blocked + "/inside", withIntermediateDirectories: true)

    let results = try cache.store(items)

    #expect(results.count == 3)
    guard case .failure(let error) = results[1] else {
      Issue.record("the unplaceable body was stored")
      return
    }
    #expect(error.kind == .localIO)
    let stored = try [results[0], results[2]].map { try $0.get() }
    #expect(stored.map(\.url) == [urls[0], urls[2]])
    #expect(try cache.entry(forKey: items[1].key) == nil)
    for entry in stored { #expect(FileIO.isFile(cache.layout.dataPath(entry.file))) }
    #expect(
      try cache.totals()
        == CacheTotals(
          entries: 2, bytes: 3_010, allocated: stored.reduce(0) { $0 + $1.allocated }))
    let statistics = try cache.statistics()
    #expect(statistics[.downloads] == 2)
    #expect(statistics[.bytesDownloaded] == 3_010)
    #expect(try cache.failures().map(\.url) == [urls[1]])
    // The failed body's temporary file is removed; the folder in its way is left alone.
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
    #expect(FileManager.default.fileExists(atPath: blocked + "/inside"))
    cache.close()
  }
}
