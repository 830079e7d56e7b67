import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheIndex
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
    // Written in the background: this process sees them meanwhile, others once committed.
    #expect(try cache.entry(forKey: many[0])?.accessCount == 1)
    cache.index.waitForBackgroundWrite()
    #expect(try accessCounts([many[0], many[many.count - 1]]) == [1, 1])

    _ = try cache.hits(forKeys: [urls[1]], touch: true)
    #expect(try accessCounts([urls[1]]) == [5])
    cache.close()
    #expect(try accessCounts([urls[1]]) == [6], "the close writes what waits")
    let stats = try DiskCache(directory: directory.url).statistics()
    #expect(stats[.hitsLocal] == Int64(5 * 3 + many.count + 1))
  }

  @Test("uses that cannot be written wait for a bounded number of entries, never more")
  func boundedWhenUnwritten() {
    var pending = PendingWrites()
    let keys = (0...PendingWrites.maxWaiting).map { "https://a.example/\($0).png" }
    pending.addUses(of: digested(keys), at: 1, now: .now)
    #expect(pending.uses.count == PendingWrites.maxWaiting, "one more entry's use dropped")
    pending.addUses(of: digested([keys[0]]), at: 2, now: .now)
    #expect(pending.uses[keys[0]]?.count == 2, "an entry already waiting still counts")
    // A failed write's uses come back, within the same bound.
    var other = PendingWrites()
    other.addUses(of: digested(["https://b.example/x.png"]), at: 3, now: .now)
    pending.merge(other)
    #expect(pending.uses.count == PendingWrites.maxWaiting)
  }

  @Test("uses being written in the background count for this process until they commit")
  func writingInBackground() throws {
    let cache = DiskCache(directory: directory.url, now: clock.function)
    let many = (0..<PendingWrites.maxUses).map { "https://c.example/\($0).png" }
    for url in many { _ = try store(cache, url) }
    // The background queue held: the due write is taken, and waits behind this.
    let hold = DispatchSemaphore(value: 0)
    cache.index.background.async { hold.wait() }
    for url in many { _ = try cache.hits(forKeys: [url], touch: true) }
    // Taken when due: by count, or earlier by time on a slow machine (the rest waits).
    #expect(cache.index.noted.withLock { $0.writing != nil }, "taken for writing")
    #expect(try cache.entry(forKey: many[0])?.accessCount == 1, "still this process's")
    #expect(try cache.storedEntries(forKeys: [many[1]]).map(\.accessCount) == [1])
    #expect(try accessCounts([many[0]]) == [0], "not committed yet")
    _ = try cache.hits(forKeys: [many[0]], touch: true)
    #expect(try cache.entry(forKey: many[0])?.accessCount == 2, "waiting and writing, both")
    hold.signal()
    cache.index.waitForBackgroundWrite()
    #expect(try accessCounts([many[0], many[1]]) == [1, 1])
    #expect(try cache.entry(forKey: many[0])?.accessCount == 2)
    cache.close()
    #expect(try accessCounts([many[0]]) == [2])
  }

  @Test("rows read while a background write commits are read again, then its uses folded once")
  func readAgainAcrossCommit() throws {
    let cache = DiskCache(directory: directory.url)
    let reads = Mutex(0)
    let value = cache.index.foldingUnwrittenUses {
      let count = reads.withLock { reads in
        reads += 1
        return reads
      }
      // A write in the background commits while the first read runs.
      if count == 1 { cache.index.noted.withLock { $0.commits += 2 } }
      return count
    } fold: { rows, _ in
      rows
    }
    #expect(value == 2, "read again")
    cache.index.noted.withLock { $0.commits += 1 }  // one commits now, and never ends
    let unsettled = cache.index.foldingUnwrittenUses {
      7
    } fold: { rows, _ in
      rows + 1
    }
    #expect(unsettled == 7, "after three tries, what was read: nothing waits to fold in")
  }

  @Test("after a failed write, the uses wait a while before the next try")
  func failedWriteWaits() {
    var noted = PendingWrites()
    let now = ContinuousClock.now
    noted.addUses(of: digested((0..<PendingWrites.maxUses).map { "k\($0)" }), at: 1, now: now)
    #expect(noted.usesAreDue(at: now))
    let taken = noted.take()
    noted.failed(taken, at: now)
    #expect(noted.uses.count == PendingWrites.maxUses, "noted again")
    #expect(!noted.usesAreDue(at: now + .milliseconds(10)), "not on every hit")
    #expect(noted.usesAreDue(at: now + PendingWrites.maxDelay))
  }

  /// The schema cookie in the header of `index.sqlite` (bytes 40–43): it changes with every
  /// schema change, after which every other connection parses the schema again.
  private func schemaCookie() throws -> [UInt8] {
    let header = try Data(contentsOf: directory.url.appendingPathComponent("index.sqlite"))
    return Array(header[40..<44])
  }

  @Test("a process that only reads leaves its uses at close, without a pool, seen by others")
  func hitOnlyProcess() throws {
    let url = "https://a.example/only-read.png"
    let writer = DiskCache(directory: directory.url, now: clock.function)
    _ = try store(writer, url)
    writer.close()
    let cookie = try schemaCookie()

    clock.advance(60)
    let reader = DiskCache(directory: directory.url, now: clock.function)
    #expect(try reader.hits(forKeys: [url], touch: true).count == 1)
    reader.close()
    #expect(try accessCounts([url]) == [1], "the use is left at close, in the use journal")
    // The pool's WAL set-up creates and drops a table when the WAL file is missing: a schema
    // change, after which every other process parses the schema again.
    #expect(try schemaCookie() == cookie, "no schema change")
    // With a read-only connection and a pool, the WAL outlived the process (and a copy of
    // index.sqlite alone was not complete); the direct connection, closing last, removes it.
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!files.contains("index.sqlite-wal"), "the last connection removed the WAL")
  }
}

/// `keys` with their digests, as a lookup hands them to the uses.
private func digested(_ keys: [String]) -> [(key: String, digest: KeyDigest)] {
  keys.map { ($0, KeyDigest(key: $0)) }
}
