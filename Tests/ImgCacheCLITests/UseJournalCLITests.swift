import Foundation
import ImgCacheTestSupport
import Testing

/// A `fetch` hit writes nothing to the index: its use and counts go to the use journal, which
/// the records, listings and statistics show and the next write takes (docs/design.md, On
/// disk).
@Suite("A hit's use, left in the use journal")
struct UseJournalCLITests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  private var indexFile: String { env.cacheDirectory + "/index.sqlite" }

  private func accessCount(_ records: [[String: Any]], _ url: String) -> Int? {
    records.first { $0["url"] as? String == url }?["access_count"] as? Int
  }

  @Test("hits leave the index as it was; query --json, list and stats see them; a write takes them")
  func hitsJournaled() throws {
    let urls = servers.distinctImages(2).map { servers.fault($0) }
    for url in urls { #expect(env.run(["fetch", url]).status == 0) }
    let before = try Data(contentsOf: URL(fileURLWithPath: indexFile))
    for _ in 0..<3 { #expect(env.run(["fetch", urls[0]]).status == 0) }
    #expect(env.run(["query", "--touch", urls[1]]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: indexFile)) == before, "no write")
    #expect(!FileManager.default.fileExists(atPath: indexFile + "-wal"))
    let journal = try String(contentsOfFile: indexFile + "-uses", encoding: .utf8)
    #expect(journal.components(separatedBy: "\n.\n").count == 5, "a block a hit")

    let queried = CLIEnvironment.records(env.run(["query", "--json", urls[0]]))
    #expect(accessCount(queried, urls[0]) == 3)
    let fetched = CLIEnvironment.records(env.run(["fetch", "--json", urls[1]]))
    #expect(accessCount(fetched, urls[1]) == 2, "the query's touch and this fetch")

    let stats = try #require(CLIEnvironment.records(env.run(["stats", "--json"])).first)
    let counters = stats["counters"] as? [String: Int] ?? [:]
    #expect(counters["hits_local"] == 5, "three fetch hits, the touch, the fetch --json")
    #expect(try String(contentsOfFile: indexFile + "-uses", encoding: .utf8).isEmpty)
    let listed = CLIEnvironment.records(env.run(["list", "--json"]))
    #expect(accessCount(listed, urls[0]) == 3 && accessCount(listed, urls[1]) == 2)
  }

  @Test("remove --dry-run --json shows the journal's last use, as query and remove do")
  func dryRunFolds() throws {
    let url = servers.fault(servers.distinctImages(1)[0])
    #expect(env.run(["fetch", url]).status == 0)
    // The stored use a day back: the hit's, in the journal, is the later one.
    let aged = run(
      "/usr/bin/sqlite3", [indexFile, "UPDATE entry SET last_access = last_access - 86400"])
    #expect(aged.status == 0, "\(aged.stderr)")
    #expect(env.run(["fetch", url]).status == 0)
    let journal = try String(contentsOfFile: indexFile + "-uses", encoding: .utf8)
    try #require(!journal.isEmpty, "the hit's use is in the journal, not the index")
    let listed = try #require(CLIEnvironment.records(env.run(["query", "--json", url])).first)
    let dryRun = try #require(
      CLIEnvironment.records(env.run(["remove", "--dry-run", "--json", url])).first)
    let shown = try #require(dryRun["last_access"] as? String)
    #expect(shown == listed["last_access"] as? String, "the hit's use, not the row's")
  }

  @Test("a hostile journal is ignored, never a trap: the hits and the index go on")
  func hostileJournal() throws {
    let url = servers.fault(servers.distinctImages(1)[0])
    #expect(env.run(["fetch", url]).status == 0)
    let digest = String(repeating: "ab", count: 16)
    let hostile =
      "\n+\nu \(digest) 1e308 99999999999999999999\nc hits_local -9\n.\n"
      + String(repeating: "\u{0}\u{FF}x", count: 1000) + "\n+\nc lookups 9223372036854775807\n.\n"
    try hostile.write(toFile: indexFile + "-uses", atomically: false, encoding: .utf8)
    #expect(env.run(["fetch", url]).status == 0)
    let stats = env.run(["stats", "--json"])
    #expect(stats.status == 0, "stderr: \(stats.stderr)")
    let counters = CLIEnvironment.records(stats).first?["counters"] as? [String: Int] ?? [:]
    #expect(counters["hits_local"] == 1 && counters["lookups"] == 2)
  }
}
