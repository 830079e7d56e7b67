import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("imgcache stats, verify", .serialized)
struct StatsVerifyTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  func counters() throws -> [String: Int] {
    let record = try #require(CLIEnvironment.records(env.run(["stats", "--json"])).first)
    return try #require(record["counters"] as? [String: Int])
  }

  @Test("stats: every class counted where it happens; --zero keeps the sizes and says since when")
  func counts() throws {
    let png = servers.nginx("base.png")
    #expect(env.run(["fetch", png, servers.nginx("base.gif")]).status == 0)
    #expect(env.run(["fetch", png]).status == 0)
    #expect(env.run(["fetch", servers.fault("/status/404?st=1")]).status == 8)
    #expect(env.run(["fetch", servers.fault("/status/404?st=1")]).status == 11)
    #expect(env.run(["fetch", servers.fault("/html?st=1")]).status == 9)
    #expect(env.run(["fetch", "--refresh", servers.fault("/etag?st=1")]).status == 0)
    #expect(env.run(["fetch", "--refresh", servers.fault("/etag?st=1")]).status == 0)
    #expect(env.run(["query", png]).status == 0)
    var c = try counters()
    #expect(c["lookups"] == 5 && c["hits_local"] == 1 && c["misses"] == 4)
    // A query that records the use is a lookup; a plain one is an inspection.
    #expect(env.run(["query", "--touch", png, servers.nginx("never.png")]).status == 1)
    c = try counters()
    #expect(c["lookups"] == 7 && c["hits_local"] == 2 && c["misses"] == 5)
    #expect(c["downloads"] == 3 && c["not_modified"] == 1 && c["blacklisted"] == 1)
    #expect(c["failures_http"] == 1 && c["failures_not_image"] == 1)
    #expect((c["bytes_served"] ?? 0) > 0 && (c["bytes_downloaded"] ?? 0) > (c["bytes_served"] ?? 0))
    let table = env.run(["stats"]).stdout
    #expect(table.contains("(28.6 %)") && table.hasPrefix("Statistics since "))
    #expect(env.run(["remove", png]).status == 0)
    // The gif and the etag image: both go to get strictly below 0.5 × 1 entries.
    #expect(env.run(["clean", "--max-entries", "1", "--target", "0.5"]).status == 0)
    #expect(env.run(["fetch", servers.nginx("base.bmp")]).status == 0)
    #expect(env.run(["clear"]).status == 0)
    c = try counters()
    #expect(c["evictions_remove"] == 1 && c["evictions_count"] == 2 && c["evictions_clear"] == 1)
    #expect(c["cleans"] == 1 && c["evictions_size"] == 0 && c["evictions_age"] == 0)
    #expect(env.run(["fetch", servers.nginx("base.jpg")]).status == 0)
    #expect(env.run(["stats", "--zero"]).status == 0)
    let zeroed = try #require(CLIEnvironment.records(env.run(["stats", "--json"])).first)
    #expect((zeroed["counters"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true)
    #expect(zeroed["zeroed"] is String && zeroed["hit_ratio"] is NSNull)
    #expect((zeroed["totals"] as? [String: Any])?["entries"] as? Int == 1)
    #expect(env.run(["stats"]).stdout.hasPrefix("Statistics since zeroed "))
  }

  @Test("stats: 8 processes × 12 URLs at once add up exactly")
  func concurrentCounts() throws {
    let urls = (0..<12).map { servers.nginx("base.png?cc=\($0)") }
    let list = env.root.path + "/urls.txt"
    try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
    let group = DispatchGroup()
    let statuses = Statuses()
    for _ in 0..<8 {
      DispatchQueue.global().async(group: group) {
        statuses.append(env.run(["prefetch", "-q", "-i", list]).status)
      }
    }
    group.wait()
    #expect(statuses.values == Array(repeating: 0, count: 8))
    let c = try counters()
    #expect(c["lookups"] == 96)
    #expect((c["hits_local"] ?? 0) + (c["misses"] ?? 0) == 96)
    // One download per URL across the processes; the other misses waited for it.
    #expect(c["downloads"] == 12)
    #expect((c["downloads"] ?? 0) + (c["waited_for_process"] ?? 0) == c["misses"])
  }

  @Test("verify: missing, truncated, stray, edited row, totals; exit 1, --repair fixes, then clean")
  func verify() throws {
    for name in ["base.jpg", "base.png", "base.gif", "base.bmp", "base.tiff"] {
      #expect(env.run(["fetch", servers.nginx(name)]).status == 0)
    }
    func path(_ name: String) -> String {
      env.run(["query", servers.nginx(name)]).stdout.trimmingCharacters(in: .newlines)
    }
    #expect(env.run(["verify"]).status == 0)
    try FileManager.default.removeItem(atPath: path("base.jpg"))
    let png = path("base.png")
    let truncated = try #require(FileManager.default.contents(atPath: png)).prefix(40)
    try truncated.write(to: URL(fileURLWithPath: png))
    let gif = path("base.gif")
    var body = try #require(FileManager.default.contents(atPath: gif))
    body[body.count - 2] ^= 0xFF
    try body.write(to: URL(fileURLWithPath: gif))
    let folder = env.cacheDirectory + "/data/00"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data("stray".utf8).write(to: URL(fileURLWithPath: folder + "/stray.png"))
    let index = env.cacheDirectory + "/index.sqlite"
    #expect(
      run(
        "/usr/bin/sqlite3", [index, "UPDATE entry SET size = size + 1 WHERE key LIKE '%base.bmp'"]
      ).status == 0)
    let dry = env.run(["verify", "--json"])
    #expect(dry.status == 1)
    let report = try #require(CLIEnvironment.records(dry).first)
    func count(_ name: String) -> Int? { (report[name] as? [String: Any])?["count"] as? Int }
    #expect(count("missing") == 1 && count("orphans") == 1 && count("size_mismatches") == 2)
    #expect(count("hash_mismatches") == 0)
    #expect(report["totals"] is [String: Any])
    let full = try #require(CLIEnvironment.records(env.run(["verify", "--full", "--json"])).first)
    #expect((full["hash_mismatches"] as? [String: Any])?["count"] as? Int == 2)
    #expect(FileManager.default.fileExists(atPath: folder + "/stray.png"))
    let text = env.run(["verify", "--full"])
    #expect(text.status == 1 && text.stdout.contains("data/00/stray.png"))
    #expect(text.stdout.contains(servers.nginx("base.jpg")))
    let repaired = env.run(["verify", "--full", "--repair"])
    #expect(repaired.status == 0)
    #expect(!FileManager.default.fileExists(atPath: folder + "/stray.png"))
    let after = env.run(["verify", "--full"])
    #expect(after.status == 0 && after.stdout.contains("no problems"))
    // The bmp and tiff survive (the bmp's size corrected); the others are gone.
    #expect(
      env.run(["list", "--urls", "--sort", "url"]).stdout
        == [servers.nginx("base.bmp"), servers.nginx("base.tiff")].map { $0 + "\n" }.joined())
    #expect(env.run(["fetch", servers.nginx("base.gif")]).status == 0)
  }

  @Test("verify while a prefetch stores: nothing it stores is reported or touched")
  func verifyDuringPrefetch() throws {
    let urls = (0..<1_000).map { servers.nginx("base.png?vp=\($0)") }
    let list = env.root.path + "/urls.txt"
    try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
    let prefetch = DispatchGroup()
    let statuses = Statuses()
    DispatchQueue.global().async(group: prefetch) {
      statuses.append(env.run(["prefetch", "-q", "-j", "8", "-i", list]).status)
    }
    var runs = 0
    while prefetch.wait(timeout: .now()) == .timedOut && runs < 200 {
      let verify = env.run(["verify"])
      #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
      runs += 1
    }
    prefetch.wait()
    #expect(statuses.values == [0] && runs > 0)
    #expect(env.run(["verify", "--full"]).stdout.contains("checked 1000 entries"))
  }

  @Test("verify takes the maintenance lock: exit 10 while a clean holds it")
  func verifyBusy() throws {
    #expect(env.run(["fetch", servers.nginx("base.png")]).status == 0)
    let lock = open(env.cacheDirectory + "/clean.lock", O_RDWR | O_CREAT, 0o644)
    defer { close(lock) }
    #expect(flock(lock, LOCK_EX) == 0)
    let busy = env.run(["verify"])
    #expect(busy.status == 10)
    expectCleanError(busy, contains: "running")
  }
}

/// Exit statuses collected from several threads.
private final class Statuses: @unchecked Sendable {
  private let lock = NSLock()
  private var collected = [Int32]()
  var values: [Int32] { lock.withLock { collected } }
  func append(_ status: Int32) { lock.withLock { collected.append(status) } }
}
