import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheConfiguration
@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCacheTransport

/// `CacheEntry` decodes rows by position (several times faster on the hit path), so its
/// column list, decoder and encoder must stay in lockstep: every column is checked here by
/// name, with a distinct value, through a real store and a real read.
@Suite("CacheEntry columns: written and read back by name")
struct EntryColumnsTests {
  let directory = TemporaryDirectory()

  @Test("every column round-trips: the value stored is the value read, under its own name")
  func everyColumnByName() throws {
    let cache = DiskCache(directory: directory.url)
    let body = directory.url.appendingPathComponent("body.png").path
    #expect(FileManager.default.createFile(atPath: body, contents: Data("png".utf8)))
    var metadata = EntryMetadata(
      format: .png, width: 11, height: 12, contentType: "image/x-test", etag: "\"etag-1\"",
      lastModified: "Sun, 06 Nov 1994 08:49:37 GMT",
      expiry: Date(timeIntervalSince1970: 2_000_000_001),
      sha256: String(repeating: "ab", count: 32),
      freshness: ResponseFreshness(
        cacheControl: "max-age=13", expires: "expires-14", date: "date-15", age: "16",
        received: Date(timeIntervalSince1970: 1_700_000_017), status: 203))
    metadata.shareable = true
    let key = "https://a.example/img@2x.png"
    _ = try cache.store(body, key: key, url: key + "?u", metadata: metadata)
    let stored = try #require(try cache.entry(forKey: key))
    // The lookup decodes straight from the statement (`StatementColumns`), the rest through
    // GRDB's `Row`: one decoder, the same entry.
    #expect(try cache.index.entries(forKeys: [key]) == [stored])
    cache.index.close()

    let row = try #require(
      try DatabaseQueue(path: cache.layout.indexPath).read { db in
        try Row.fetchOne(db, sql: "SELECT * FROM entry WHERE key = ?", arguments: [key])
      })
    let expected: [String: DatabaseValue] = [
      "key": key.databaseValue, "url": (key + "?u").databaseValue,
      // The stored forms (StoredForm): the file's extension (its name is the key's MD5), a
      // canonical date as a number, the SHA-256 as bytes, the key's MD5 as two integers.
      "file_ext": "png".databaseValue, "size": 3.databaseValue,
      "allocated": stored.allocated.databaseValue, "format": "png".databaseValue,
      "width": 11.databaseValue, "height": 12.databaseValue, "scale": 2.databaseValue,
      "content_type": "image/x-test".databaseValue, "etag": "\"etag-1\"".databaseValue,
      "last_modified": 784_111_777.databaseValue,
      "created": stored.created.timeIntervalSince1970.databaseValue,
      "last_access": stored.lastAccess.timeIntervalSince1970.databaseValue,
      "expiry": 2_000_000_001.0.databaseValue, "access_count": 0.databaseValue,
      "sha256": Data(repeating: 0xab, count: 32).databaseValue,
      "cache_control": "max-age=13".databaseValue, "expires": "expires-14".databaseValue,
      "date": "date-15".databaseValue, "age": "16".databaseValue,
      "received": 1_700_000_017.0.databaseValue, "status": 203.databaseValue,
      "shareable": true.databaseValue, "digest": KeyDigest(key: key).high.databaseValue,
      "digest_low": KeyDigest(key: key).low.databaseValue,
    ]
    for column in CacheEntry.Columns.all.map(\.name) {
      #expect(row[column] == expected[column], "column \(column)")
    }
    #expect(Set(CacheEntry.Columns.all.map(\.name)) == Set(expected.keys), "every column checked")
    // The one list of columns (EntryColumn) is the table's own, in its order.
    #expect(Array(row.columnNames) == CacheEntry.Columns.all.map(\.name))
    // And back: the positional decoder gives every field its own column's value.
    #expect(stored.metadata == metadata)
    #expect(stored.scale == 2 && stored.url == key + "?u" && stored.size == 3)
    #expect(stored.file == CacheLayout.relativeFile(for: key))
  }

  @Test("an entry's copies share their fields until one changes, and then only it changes")
  func copiesAreIndependent() {
    let original = CacheEntry(
      key: "https://a.example/k.png", url: "https://a.example/k.png", file: "ab/k.png", size: 3,
      allocated: 4096, metadata: EntryMetadata(etag: "\"1\""), at: Date(timeIntervalSince1970: 1))
    var copy = original
    #expect(copy == original)
    copy.accessCount += 1
    copy.etag = "\"2\""
    copy.freshness.status = 304
    #expect(original.accessCount == 0 && original.etag == "\"1\"")
    #expect(original.freshness.status == nil)
    #expect(copy.accessCount == 1 && copy.etag == "\"2\"" && copy.freshness.status == 304)
    #expect(copy != original)
    var again = copy
    again.accessCount -= 1
    again.etag = "\"1\""
    again.freshness.status = nil
    #expect(again == original)
    #expect(copy.accessCount == 1)
  }
}
