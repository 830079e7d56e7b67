import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheConfiguration
@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCacheSupport
@testable import ImgCacheTransport

@Suite("Disk cache: layout, store, query, remove, clear (SDImageCacheTests)")
struct DiskCacheTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()
  var cache: DiskCache { DiskCache(directory: directory.url, now: clock.function) }

  @Test("nothing is created until the first write; size of a missing cache is zero (test20)")
  func lazyCreation() throws {
    let cache = DiskCache(directory: directory.url.appendingPathComponent("new"))
    #expect(try cache.totals() == .zero)
    #expect(try cache.lookup(key: "https://a.example/x.png") == nil)
    #expect(!FileManager.default.fileExists(atPath: cache.layout.rootPath))
  }

  @Test("layout: CACHEDIR.TAG, WAL index, sharded data path, no world-writable directory")
  func layout() throws {
    let cache = self.cache
    let entry = try store(cache, "https://placehold.co/50x50.jpg")
    #expect(entry.file == "e9/e9936aba8d7f7fcca7813d72290de957.jpg")
    #expect(FileIO.isFile(cache.layout.rootPath + "/data/e9/e9936aba8d7f7fcca7813d72290de957.jpg"))
    let tag = try String(contentsOf: URL(fileURLWithPath: cache.layout.tagPath), encoding: .utf8)
    #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    let mode = try DatabaseQueue(path: cache.layout.indexPath).read { db in
      try String.fetchOne(db, sql: "PRAGMA journal_mode")
    }
    #expect(mode == "wal")
    for sub in ["", "/data", "/tmp", "/data/e9"] {
      var info = stat()
      #expect(stat(cache.layout.rootPath + sub, &info) == 0)
      #expect(info.st_mode & 0o002 == 0, "\(sub) is world-writable")
    }
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
  }

  @Test("store then query returns the body and metadata (test09, test21, test40)")
  func storeAndQuery() throws {
    let cache = self.cache
    let url = "https://a.example/photos/cat@2x.png"
    let body = Fixtures.bytes("base.png")
    let metadata = EntryMetadata(
      format: .png, width: 37, height: 21, contentType: "image/png", etag: "\"abc\"",
      lastModified: "Tue, 01 Jan 2030 00:00:00 GMT")
    let stored = try cache.store(
      try temporaryBody(cache, body), key: url, url: url, metadata: metadata)
    #expect(stored.scale == 2)
    #expect(stored.size == Int64(body.count))
    #expect(stored.allocated >= stored.size)
    let hit = try #require(try cache.lookup(key: url))
    guard case .local(let entry, let path) = hit else {
      Issue.record("expected a local hit")
      return
    }
    #expect(entry.metadata == metadata)
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == body)
    #expect(
      try cache.totals() == CacheTotals(entries: 1, bytes: stored.size, allocated: stored.allocated)
    )
  }

  @Test("a lookup records the access unless told not to; entry() never does (exists vs query)")
  func accessRecording() throws {
    let cache = self.cache
    let url = "https://a.example/a.jpg"
    let stored = try store(cache, url)
    clock.advance(60)
    _ = try cache.lookup(key: url, touch: false)
    #expect(try cache.entry(forKey: url)?.lastAccess == stored.lastAccess)
    #expect(try cache.entry(forKey: url)?.accessCount == 0)
    _ = try cache.lookup(key: url)
    #expect(try cache.entry(forKey: url)?.lastAccess == clock.now)
    #expect(try cache.entry(forKey: url)?.accessCount == 1)
  }

  @Test("replacing an entry replaces its file and keeps the totals right")
  func replace() throws {
    let cache = self.cache
    let url = "https://a.example/a.jpg"
    try store(cache, url, [UInt8](repeating: 1, count: 10))
    let second = try store(cache, url, [UInt8](repeating: 2, count: 5000))
    #expect(try cache.totals() == CacheTotals(entries: 1, bytes: 5000, allocated: second.allocated))
    let path = try #require(try cache.lookup(key: url)).path
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 5000)
  }

  @Test("a row whose file is gone is a miss, and the row is dropped")
  func missingFile() throws {
    let cache = self.cache
    let entry = try store(cache, "https://a.example/a.jpg")
    unlink(cache.layout.dataPath(entry.file))
    #expect(try cache.lookup(key: entry.key) == nil)
    #expect(try cache.entry(forKey: entry.key) == nil)
    #expect(try cache.totals() == .zero)
  }

  @Test("remove deletes row, file and the legacy no-extension file (test10, SD remove bug fixed)")
  func remove() throws {
    let cache = self.cache
    let url = "https://a.example/a.jpg"
    let entry = try store(cache, url)
    let legacy = cache.layout.dataPath(String(entry.file.prefix(2)) + "/" + MD5.hex(of: url))
    try Data("old".utf8).write(to: URL(fileURLWithPath: legacy))
    #expect(try cache.remove(key: url, dryRun: true)?.key == url)
    #expect(FileIO.isFile(cache.layout.dataPath(entry.file)))
    #expect(try cache.remove(key: url)?.key == url)
    #expect(!FileIO.isFile(cache.layout.dataPath(entry.file)))
    #expect(!FileIO.isFile(legacy))
    #expect(try cache.lookup(key: url) == nil)
    #expect(try cache.remove(key: url) == nil)
    #expect(try cache.totals() == .zero)
  }

  @Test("clear removes everything and the cache keeps working (test04, test58)")
  func clear() throws {
    let cache = self.cache
    for index in 0..<20 { try store(cache, "https://a.example/\(index).png") }
    try cache.recordFailure(url: "https://a.example/bad.png", error: CacheError(.notAnImage, "x"))
    let dry = try cache.clear(dryRun: true)
    #expect(dry.removed.entries == 20 && dry.failedURLs == 1)
    #expect(try cache.totals().entries == 20)
    let report = try cache.clear()
    #expect(report.removed.entries == 20)
    #expect(report.failedURLs == 1)
    #expect(try cache.totals() == .zero)
    #expect(DirectoryListing.names(in: cache.layout.dataFolder).isEmpty)
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
    try store(cache, "https://a.example/after.png")
    #expect(try cache.lookup(key: "https://a.example/after.png") != nil)
  }

  @Test("threads creating a new cache at once all succeed (regression: database is locked)")
  func concurrentFirstOpen() throws {
    for round in 0..<5 {
      let root = directory.url.appendingPathComponent("fresh-\(round)")
      let failures = Collector<String>()
      DispatchQueue.concurrentPerform(iterations: 6) { _ in
        do { _ = try DiskCache(directory: root).index.writer() } catch { failures.add("\(error)") }
      }
      #expect(failures.all.isEmpty, "\(failures.all)")
    }
  }

  @Test(
    "read-only directories: SDWebImage's flat layout, with and without extension, never written")
  func readOnlyDirectories() async throws {
    let extra = TemporaryDirectory("imgcache-ro")
    let url = "https://a.example/ro.png"
    let legacyURL = "https://a.example/legacy.png"
    try extra.write(CacheKey.fileName(for: url), Array("ro".utf8))
    try extra.write(MD5.hex(of: legacyURL), Array("legacy".utf8))
    chmod(extra.path, 0o555)
    defer { chmod(extra.path, 0o755) }
    let cache = DiskCache(directory: directory.url)
    let readOnly = ReadOnlyDirectories([extra.url])
    #expect(
      readOnly.lookup(key: url) == .readOnly(path: extra.path + "/" + CacheKey.fileName(for: url)))
    #expect(
      readOnly.lookup(key: legacyURL) == .readOnly(path: extra.path + "/" + MD5.hex(of: legacyURL))
    )
    #expect(readOnly.lookup(key: "https://a.example/none.png") == nil)
    await #expect(throws: CacheError.self) {
      try await readOnly.store(key: url, url: url, copying: extra.path + "/x", metadata: .init())
    }
    _ = try cache.clear()
    _ = try cache.clean(policy: CleanPolicy())
    #expect(DirectoryListing.names(in: extra.path).count == 2)
  }

  @Test(
    "failed URLs: recorded with reason and status, blacklisted within the TTL, forgotten on success"
  )
  func failedURLs() throws {
    let cache = self.cache
    let url = "https://a.example/404.png"
    #expect(try cache.failure(url: url) == nil)
    try cache.recordFailure(url: url, error: CacheError(.httpStatus, "HTTP 404", httpStatus: 404))
    clock.advance(10)
    try cache.recordFailure(url: url, error: CacheError(.httpStatus, "HTTP 410", httpStatus: 410))
    let record = try #require(try cache.failure(url: url))
    #expect(record.count == 2)
    #expect(record.httpStatus == 410)
    #expect(record.reason == "HTTP 410")
    #expect(record.lastFailure.timeIntervalSince(record.firstFailure) == 10)
    clock.advance(DiskCache.defaultFailedTTL - 1)
    #expect(try cache.failure(url: url) != nil)
    clock.advance(1)
    #expect(try cache.failure(url: url) == nil)
    #expect(try cache.failure(url: url, ttl: 2 * 86_400) != nil)
    try cache.forgetFailure(url: url)
    #expect(try cache.failures().isEmpty)
    try cache.recordFailure(url: url, error: CacheError(.notAnImage, "not an image"))
    #expect(try cache.clearFailedURLs() == 1)
    #expect(try cache.failure(url: url) == nil)
  }

  @Test("rows are decoded by position: the entry table's columns are Columns.all, in order")
  func entryColumnOrder() throws {
    let cache = self.cache
    let stored = try store(cache, "https://a.example/order.png")
    let names = try DatabaseQueue(path: cache.layout.indexPath).read { db in
      try db.columns(in: "entry").map(\.name)
    }
    #expect(names == CacheEntry.Columns.all.map(\.name))
    #expect(try cache.storedEntries(forKeys: [stored.key]) == [stored])
  }

  @Test("a batch lookup answers in input order, repeats included, misses left out, past 256 keys")
  func batchLookup() throws {
    let cache = self.cache
    let urls = (0..<300).map { "https://a.example/\($0).png" }
    for url in urls where !url.hasSuffix("7.png") { _ = try store(cache, url) }
    let asked = urls.reversed() + ["https://a.example/1.png", "https://a.example/none.png"]
    let found = try cache.storedEntries(forKeys: asked).map(\.key)
    #expect(found == asked.filter { !$0.hasSuffix("7.png") && !$0.hasSuffix("none.png") })
    #expect(try cache.hits(forKeys: asked, touch: true).count == 270)
  }
}
