import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A fleet on one machine (docs/fleet.md): four workers with caches of their own, one Redis for
/// the queue, WebDAV for the remote tier, 20,000 URLs; two workers killed mid-shard and one
/// started again. The job completes, each URL is stored once in the remote tier and has one
/// manifest line, and the origin sees each URL once, but for what the killed workers had
/// fetched and not yet written back.
@Suite("a fleet of four workers, two killed: the job completes, each URL once", .serialized)
struct FleetTests {
  let servers = TestServers.shared
  let fleet = JobFleet()

  /// Successful PUTs in the WebDAV access log, by path.
  func puts(_ log: String) -> [String: Int] {
    var counts = [String: Int]()
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: "\"")
      guard parts.count > 2, parts[1].hasPrefix("PUT "),
        let status = parts[2].split(separator: " ").first, status == "201" || status == "204"
      else { continue }
      counts[String(parts[1].split(separator: " ")[1]), default: 0] += 1
    }
    return counts
  }

  @Test("20,000 URLs, four workers, two kill -9'd mid-shard, one restarted")
  func killedWorkers() throws {
    let stores = RemoteStores(dav: true)
    let dav = try #require(stores.dav)
    let remote = "http://127.0.0.1:\(dav.port)/fleet"
    let count = 20_000
    let (jobs, batch) = (8, 32)
    let paths = servers.distinctImages(count)
    try fleet.submit(
      "fleet", paths.map { servers.fault($0) }, ["--shard-size", "500", "-j", String(jobs)])
    let lease = ["IMGCACHE_JOB_LEASE": "1s"]
    var workers = try (0..<4).map { _ in
      try fleet.worker("fleet", remote: remote, environment: lease)
    }
    try fleet.wait("four shards done", seconds: 120) {
      (try fleet.status("fleet")["done"] as? Int ?? 0) >= 4
    }
    for victim in workers.prefix(2) {
      kill(victim.process.processIdentifier, SIGKILL)
      _ = victim.finish()
    }
    workers = Array(workers.dropFirst(2))
    workers.append(try fleet.worker("fleet", remote: remote, environment: lease))
    for worker in workers {
      let (status, said) = worker.finish()
      #expect(status == 0, "\(said)")
    }
    let state = try fleet.status("fleet")
    #expect(state["done"] as? Int == count / 500 && state["dead"] as? Int == 0)
    #expect(state["pending"] as? Int == 0 && state["in_progress"] as? Int == 0)
    let lines = fleet.manifest("fleet")
    let urls = lines.compactMap { $0["url"] as? String }
    #expect(lines.count == count && Set(urls).count == count, "one line per URL")
    #expect(lines.allSatisfy { $0["status"] as? String != "error" })
    let stored = puts(dav.log)
    #expect(stored.count == count, "every URL in the remote tier")
    #expect(stored.values.allSatisfy { $0 == 1 }, "each stored once")
    // The killed workers' transfers in flight and bodies not yet written back, at most.
    let requests = servers.requests(paths)
    print("fleet: \(count) URLs, \(requests) origin requests, \(stored.count) objects written")
    #expect(requests >= count && requests <= count + 2 * (jobs + batch), "\(requests) requests")
  }
}
