import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// A hit records its use in `entry_use` without rewriting the entry's row; whatever reads the
/// LRU order or the use counts sees the uses of every process, and no use outlives its entry.
@Suite("The narrow LRU record: uses kept beside the entries, merged before they are read")
struct EntryUsesTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()

  /// A cache object with its own connections: what another process sees and does.
  func process() -> DiskCache { DiskCache(directory: directory.url, now: clock.function) }

  /// Reads `index.sqlite` as it is on disk, bypassing the cache's own reads.
  func raw<T>(_ body: (Database) throws -> T) throws -> T {
    try DatabaseQueue(path: directory.url.appendingPathComponent("index.sqlite").path).read(body)
  }

  func useRows() throws -> Int {
    try raw { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry_use") ?? -1 }
  }

  /// Stores `count` entries one second apart (the first is the least recently used).
  func fill(_ cache: DiskCache, _ count: Int) throws -> [String] {
    let urls = (0..<count).map { "https://a.example/\($0).png" }
    for url in urls {
      try store(cache, url, [UInt8](repeating: 1, count: 4096))
      clock.advance(1)
    }
    return urls
  }

  /// Uses `urls` from another process, which then ends (its uses are written at close).
  func use(_ urls: [String], times: Int = 1) throws {
    let other = process()
    for _ in 0..<times { #expect(try other.hits(forKeys: urls, touch: true).count == urls.count) }
    other.close()
  }

  @Test("a hit leaves the entry's row as it was; lookups from any process see the use")
  func rowUntouched() throws {
    let cache = process()
    let urls = try fill(cache, 2)
    cache.close()
    clock.advance(60)
    try use([urls[0]], times: 3)
    let row = try raw {
      try Row.fetchOne(
        $0, sql: "SELECT last_access, access_count FROM entry WHERE key = ?", arguments: [urls[0]])
    }
    #expect(row?["access_count"] == 0, "the row is not rewritten by a hit")
    #expect(try useRows() == 0, "a process that only read left its use in the journal")
    let seen = try process().entry(forKey: urls[0])
    #expect(seen?.accessCount == 3)
    #expect(seen?.lastAccess == clock.now)
    // A write takes the journal into the narrow table, still not into the row.
    _ = try process().statistics()
    #expect(try useRows() == 1)
    #expect(try process().storedEntries(forKeys: urls).map(\.accessCount) == [3, 0])
  }

  @Test("a clean trims in the LRU order that includes another process's uses")
  func cleanSeesOtherUses() throws {
    let cache = process()
    let urls = try fill(cache, 4)
    let allocated = try cache.totals().allocated
    cache.close()
    try use([urls[0]])
    var policy = CleanPolicy()
    policy.maxAge = -1
    policy.maxSize = allocated - 1
    policy.target = 0.6
    let report = try process().clean(policy: policy)
    #expect(report.trimmed.map(\.key) == [urls[1], urls[2]], "the used entry is the most recent")
    #expect(try useRows() == 0)
  }

  @Test("max age counts from the last use recorded by any process")
  func ageSeesOtherUses() throws {
    let cache = process()
    let urls = try fill(cache, 2)
    cache.close()
    clock.advance(6 * 86_400)
    try use([urls[0]])
    clock.advance(2 * 86_400)
    var policy = CleanPolicy()
    policy.maxAge = 7 * 86_400
    let report = try process().clean(policy: policy)
    #expect(report.expired.map(\.key) == [urls[1]])
    #expect(try process().entry(forKey: urls[0])?.accessCount == 1)
  }

  @Test("list sorts by the last use and the count of every process, and shows them")
  func listSeesOtherUses() throws {
    let cache = process()
    let urls = try fill(cache, 3)
    cache.close()
    try use([urls[0]], times: 2)
    let reader = process()
    let byAccess = try reader.entries(matching: EntryFilter(), order: .access, limit: 10).entries
    #expect(byAccess.map(\.key) == [urls[1], urls[2], urls[0]])
    #expect(byAccess.map(\.accessCount) == [0, 0, 2])
    let byHits = try reader.entries(matching: EntryFilter(), order: .hits, reverse: true, limit: 10)
    #expect(byHits.entries.first?.key == urls[0])
  }

  @Test("no use outlives its entry: remove, verify --repair, clear; a reused rowid starts at 0")
  func noOrphans() throws {
    let cache = process()
    let urls = try fill(cache, 4)
    cache.close()
    try use(urls)
    _ = try process().statistics()  // the journal taken
    #expect(try useRows() == 4)
    // The newest entry has the largest rowid: SQLite gives it to the next entry stored.
    #expect(try process().remove(key: urls[3])?.lastAccess == clock.now, "removed with its use")
    #expect(try useRows() == 3)
    let fresh = try store(process(), "https://a.example/fresh.png")
    #expect(fresh.accessCount == 0)
    #expect(try process().entry(forKey: fresh.key)?.accessCount == 0, "no use inherited")
    let gone = try #require(try process().entry(forKey: urls[1]))
    unlink(process().layout.dataPath(gone.file))
    _ = try process().verify(repair: true)
    #expect(try useRows() == 2)
    _ = try process().clear()
    #expect(try useRows() == 0)
  }

  @Test("storing over an entry folds its uses into the new row")
  func storeFolds() throws {
    let cache = process()
    let urls = try fill(cache, 1)
    cache.close()
    try use(urls, times: 2)
    let stored = try store(process(), urls[0], [UInt8](repeating: 2, count: 100))
    #expect(stored.accessCount == 2)
    #expect(try useRows() == 0)
    try use(urls)
    #expect(try process().entry(forKey: urls[0])?.accessCount == 3)
  }

  @Test("an index of schema v6 is migrated by a process that only reads, then records uses")
  func migratesV6() throws {
    let cache = process()
    let urls = try fill(cache, 2)
    cache.close()
    // Back to v6: the table, its trigger and the migration's record gone.
    try DatabaseQueue(path: directory.url.appendingPathComponent("index.sqlite").path).write { db in
      try db.execute(
        sql: """
          DROP TRIGGER entry_use_forget; DROP TABLE entry_use;
          DELETE FROM grdb_migrations WHERE identifier = 'v7'
          """)
    }
    let reader = process()
    #expect(
      try reader.totals().entries == 2, "a read that needs no v7 table opens the direct connection")
    #expect(try reader.hits(forKeys: urls, touch: true).count == 2)
    reader.close()
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!files.contains("index.sqlite-wal"), "the last connection removed the WAL")
    let versions = try raw {
      try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations")
    }
    #expect(versions.last == "v7")
    #expect(try process().storedEntries(forKeys: urls).map(\.accessCount) == [1, 1])
  }
}
