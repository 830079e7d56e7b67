import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCacheKit

/// A process that only read the index leaves its uses and counts in the use journal, and the
/// next write transaction of any process takes them (docs/design.md, On disk).
@Suite("The use journal: hits leave their uses without a write transaction")
struct UseJournalTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()

  private var journalPath: String { directory.url.appendingPathComponent("index.sqlite-uses").path }

  private func journalText() -> String {
    (try? String(contentsOfFile: journalPath, encoding: .utf8)) ?? ""
  }

  /// Stores `urls` and closes that writer: the hits come from other processes.
  private func stored(_ urls: [String]) throws {
    let writer = DiskCache(directory: directory.url, now: clock.function)
    for url in urls { _ = try store(writer, url) }
    writer.close()
  }

  @Test("a hit's close appends a block; the index is not written; a write takes the block")
  func hitsLeaveABlock() throws {
    let urls = ["https://a.example/1.png", "https://a.example/2.png"]
    try stored(urls)
    clock.advance(60)
    let indexFile = directory.url.appendingPathComponent("index.sqlite").path
    let before = try Data(contentsOf: URL(fileURLWithPath: indexFile))
    for _ in 0..<2 {
      let reader = DiskCache(directory: directory.url, now: clock.function)
      _ = try reader.hits(forKeys: urls, touch: true)
      reader.close()
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: indexFile)) == before)
    #expect(!FileManager.default.fileExists(atPath: indexFile + "-wal"))
    #expect(journalText().components(separatedBy: "\n+\n").count == 3, "two blocks")

    // Another process's records show the uses; a read takes nothing.
    let other = DiskCache(directory: directory.url)
    let hits = try other.hits(forKeys: [urls[0]], touch: false)
    let shown = other.foldingJournal([hits[urls[0]]])
    guard case .local(let entry, _)? = shown.first else {
      Issue.record("no hit")
      return
    }
    #expect(entry.accessCount == 2)
    #expect(entry.lastAccess == clock.now)
    #expect(!journalText().isEmpty)

    // Statistics take the journal, in a write: its counts and uses are in the index.
    let stats = try other.statistics()
    #expect(stats[.hitsLocal] == 4)
    #expect(stats[.lookups] == 0, "hits(forKeys:) notes no lookup")
    #expect(journalText().isEmpty)
    #expect(try other.entry(forKey: urls[1])?.accessCount == 2)
    other.close()
  }

  @Test("past its limit the journal is taken by the hit's own write, never grown")
  func boundedSize() throws {
    let url = "https://a.example/1.png"
    try stored([url])
    let filler = "\n+\nc lookups 1\n.\n"
    let blocks = UseJournal.appendLimit / filler.utf8.count + 1
    try String(repeating: filler, count: blocks).write(
      toFile: journalPath, atomically: false, encoding: .utf8)
    let reader = DiskCache(directory: directory.url, now: clock.function)
    _ = try reader.hits(forKeys: [url], touch: true)
    reader.close()
    #expect(journalText().isEmpty)
    let stats = try DiskCache(directory: directory.url).statistics()
    #expect(stats[.lookups] == Int64(blocks))
    #expect(stats[.hitsLocal] == 1)
  }

  @Test("a journal locked by a taker: the hit writes through the index")
  func lockedJournal() throws {
    let url = "https://a.example/1.png"
    try stored([url])
    FileManager.default.createFile(atPath: journalPath, contents: nil)
    let holder = open(journalPath, O_RDWR)
    #expect(flock(holder, LOCK_EX) == 0)
    defer { close(holder) }
    let reader = DiskCache(directory: directory.url, now: clock.function)
    _ = try reader.hits(forKeys: [url], touch: true)
    reader.close()
    #expect(journalText().isEmpty)
    #expect(try DiskCache(directory: directory.url).entry(forKey: url)?.accessCount == 1)
  }

  @Test("blocks round-trip; torn, foreign and out-of-bounds blocks are dropped whole")
  func parse() {
    let digest = KeyDigest(key: "https://a.example/1.png")
    var pending = PendingWrites()
    pending.addUses(of: [("https://a.example/1.png", digest)], at: 1000.25, now: .now)
    pending.addUses(of: [("https://a.example/1.png", digest)], at: 1000.5, now: .now)
    pending.add(counts: [.hitsLocal: 2, .bytesServed: 99])
    let block = UseJournal.block(of: pending) ?? ""
    let good = UseJournal.parse(Array(block.utf8), now: 2000)
    #expect(good.uses[digest.hex]?.count == 2)
    #expect(good.uses[digest.hex]?.time == 1000.5)
    #expect(good.counts == [.hitsLocal: 2, .bytesServed: 99])

    let hex = digest.hex
    let dropped = [
      "\n+\nu \(hex) 1000 1\nc hits_local 1\n",  // torn: no end
      "\n+\nu \(hex) 1000 1\r\n.\n",  // a CR
      "\n+\nu \(hex) 1000 0\n.\n",  // no use
      "\n+\nu \(hex) 1000 -1\n.\n",
      "\n+\nu \(hex) nan 1\n.\n",
      "\n+\nu \(hex) 1000 4294967297\n.\n",  // past maxAmount
      "\n+\nc hits_local +1\n.\n",
      "\n+\nc not_a_counter 1\n.\n",
      "\n+\nu \(hex.prefix(31)) 1000 1\n.\n",
      "\nu \(hex) 1000 1\n.\n",  // no start
      "\n+\nx\n.\n",
      "\n+\n..\n",
    ]
    for text in dropped {
      #expect(UseJournal.parse(Array(text.utf8), now: 2000).isEmpty, "\(text.debugDescription)")
    }
    // A torn block does not spoil the whole one after it; a future time is the reader's now.
    let torn = "\n+\nu \(hex) 1000 1\nc hits_lo" + "\n+\nu \(hex) 9999 3\n.\n"
    let after = UseJournal.parse(Array(torn.utf8), now: 2000)
    #expect(after.uses[hex]?.count == 3)
    #expect(after.uses[hex]?.time == 2000)
  }
}

extension UseJournalTests {
  @Test("a FIFO at the journal's path is no journal: hits write through the index, never wait")
  func fifo() throws {
    let url = "https://a.example/1.png"
    try stored([url])
    #expect(mkfifo(journalPath, 0o644) == 0)
    let reader = DiskCache(directory: directory.url, now: clock.function)
    _ = try reader.hits(forKeys: [url], touch: true)
    reader.close()
    let other = DiskCache(directory: directory.url)
    #expect(try other.entry(forKey: url)?.accessCount == 1)
    #expect(try other.statistics()[.hitsLocal] == 1)
    other.close()
  }

  @Test("a block that would take the journal past its limit is written through the index")
  func bigBlock() throws {
    var pending = PendingWrites()
    // About 44 bytes a use: 8,000 uses are a block of 350 KB.
    let keys = (0..<8_000).map { "https://a.example/\($0).png" }
    pending.addUses(of: keys.map { ($0, KeyDigest(key: $0)) }, at: 1000, now: .now)
    let journal = UseJournal(path: journalPath)
    let appended = journal.append(pending)
    #expect(!appended)
    #expect(journalText().isEmpty)
    var small = PendingWrites()
    small.add(counts: [.lookups: 1])
    #expect(journal.append(small))
  }

  @Test("a transaction that rolls back leaves the journal whole; the next one empties it")
  func rollbackKeeps() throws {
    let url = "https://a.example/1.png"
    try stored([url])
    let block = "\n+\nc lookups 7\n.\n"
    try block.write(toFile: journalPath, atomically: false, encoding: .utf8)
    let cache = DiskCache(directory: directory.url)
    struct Refused: Error {}
    #expect(throws: (any Error).self) { try cache.index.write { _ in throw Refused() } }
    #expect(journalText() == block)
    #expect(try cache.statistics()[.lookups] == 7)
    #expect(journalText().isEmpty)
    cache.close()
  }

  @Test("a line longer than any imgcache writes drops its block")
  func longLine() {
    let hex = KeyDigest(key: "https://a.example/1.png").hex
    let padded = "\n+\nu \(hex) 1000\(String(repeating: "0", count: 100)) 1\n.\n"
    #expect(UseJournal.parse(Array(padded.utf8), now: 2e9).isEmpty)
    let spaces = "\n+\nu" + String(repeating: " ", count: 100_000) + "\n.\n"
    #expect(UseJournal.parse(Array(spaces.utf8), now: 2e9).isEmpty)
  }
}
