import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `imgcache job retry` (docs/fleet.md, Retrying): failed URLs by class become new shards,
/// the manifest keeps one line per URL, dead shards come back with `--dead`.
@Suite("imgcache job retry: failures by class, dead shards", .serialized)
struct JobRetryCLITests {
  let servers = TestServers.shared
  let fleet = JobFleet()

  func lines(_ name: String) -> [String: String] {
    var statuses = [String: String]()
    for line in fleet.manifest(name) {
      guard let url = line["url"] as? String else { continue }
      #expect(statuses[url] == nil, "one line per URL: \(url)")
      let error = line["error"] as? [String: Any]
      statuses[url] =
        (line["status"] as? String ?? "?")
        + ((error?["http_status"] as? Int).map { " \($0)" } ?? "")
    }
    return statuses
  }

  @Test("transient failures by default, then 4xx by --class: asked again, one line per URL")
  func failures() throws {
    let run = UUID().uuidString.prefix(8)
    let good = servers.distinctImages(6).map { servers.fault($0) }
    let gone = "/status/404?retry=\(run)"
    let down = "/status/503?retry=\(run)"
    try fleet.submit(
      "again", good + [servers.fault(gone), servers.fault(down)],
      ["--shard-size", "4", "--retry", "0"])
    let noRetry = ["IMGCACHE_RETRY": "0"]
    let worker = try fleet.worker("again", environment: noRetry)
    #expect(worker.finish().status == 0)
    var statuses = lines("again")
    #expect(statuses.count == 8 && statuses[servers.fault(down)] == "error 503")
    let retried = fleet.job(CLIEnvironment(), ["retry", "again", "--json"])
    #expect(retried.status == 0, "\(retried.stderr)")
    let record = try #require(CLIEnvironment.records(retried).first)
    #expect(record["urls"] as? Int == 1 && record["shards"] as? Int == 1, "only the 503")
    statuses = lines("again")
    #expect(statuses.count == 7 && statuses[servers.fault(down)] == nil, "out until done again")
    var state = try fleet.status("again")
    #expect(state["pending"] as? Int == 1 && state["shards"] as? Int == 3)
    #expect(try fleet.worker("again", environment: noRetry).finish().status == 0)
    #expect(lines("again").count == 8)
    #expect(servers.stats()?.requests[down] == 2, "asked again")
    // A 404 is permanent: only by name, and asked again whatever the failed-URL list says.
    let byClass = fleet.job(CLIEnvironment(), ["retry", "again", "--class", "http_4xx"])
    #expect(byClass.status == 0, "\(byClass.stderr)")
    let machine = try fleet.worker("again", environment: noRetry)
    #expect(machine.finish().status == 0)
    #expect(servers.stats()?.requests[gone] == 2)
    statuses = lines("again")
    #expect(statuses.count == 8 && statuses[servers.fault(gone)] == "error 404")
    state = try fleet.status("again")
    let finished = try #require(state["finished"] as? [String: Any])
    #expect(finished["urls"] as? Int == 8 && finished["stored"] as? Int == 6)
    #expect(finished["failed"] as? [String: Int] == ["http_4xx": 1, "http_5xx": 1])
    let bad = fleet.job(CLIEnvironment(), ["retry", "again", "--class", "network,sometimes"])
    #expect(bad.status == 2)
    expectCleanError(bad, contains: "--class sometimes")
  }

  @Test("a dead shard comes back with --dead and is done by the next worker")
  func dead() throws {
    let urls = servers.distinctImages(3).map { servers.fault($0 + "&delay=1") }
    try fleet.submit("lazarus", urls, ["-j", "1"])
    let policy = ["IMGCACHE_JOB_LEASE": "1s", "IMGCACHE_MAX_DELIVERIES": "1"]
    let victim = try fleet.worker("lazarus", environment: policy)
    try fleet.wait("the shard taken") {
      ((try? String(contentsOfFile: victim.log, encoding: .utf8)) ?? "").contains("shard 0:")
    }
    kill(victim.process.processIdentifier, SIGKILL)
    _ = victim.finish()
    let burier = try fleet.worker("lazarus", environment: policy).finish()
    #expect(burier.status == 0 && burier.said.contains("1 shards moved"), "\(burier.said)")
    #expect(try fleet.status("lazarus")["dead"] as? Int == 1)
    let retried = fleet.job(CLIEnvironment(), ["retry", "lazarus", "--only-dead"])
    #expect(retried.status == 0, "\(retried.stderr)")
    var state = try fleet.status("lazarus")
    #expect(state["dead"] as? Int == 0 && state["pending"] as? Int == 1)
    let done = try fleet.worker("lazarus").finish()
    #expect(done.status == 0, "\(done.said)")
    state = try fleet.status("lazarus")
    #expect(state["done"] as? Int == 1 && state["dead"] as? Int == 0)
    #expect(Set(fleet.manifest("lazarus").compactMap { $0["url"] as? String }) == Set(urls))
  }
}
