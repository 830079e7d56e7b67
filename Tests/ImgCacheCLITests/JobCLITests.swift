import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `imgcache job` against a real redis-server and the fault server (docs/fleet.md): workers
/// on separate cache directories share a job, give back a shard on SIGTERM, take over a
/// killed worker's shard, bury a poison shard, stop on a cancel.
@Suite("imgcache job: a fleet shares one URL list through Redis Streams", .serialized)
struct JobCLITests {
  let servers = TestServers.shared
  let fleet = JobFleet()
  var redis: RemoteStores { fleet.redis }

  @Test("two machines share a 60-URL job: each URL fetched once, one manifest line each")
  func twoWorkers() throws {
    let paths = servers.distinctImages(60)
    let urls = paths.map { servers.fault($0 + "&delay=0.02") }
    // Five listed twice, nearby: dropped at submit, one manifest line each.
    try fleet.submit("pair", urls + urls.prefix(5), ["--shard-size", "10", "-j", "3"])
    let workers = try (0..<2).map { _ in try fleet.worker("pair") }
    for worker in workers {
      let (status, said) = worker.finish()
      #expect(status == 0, "\(said)")
    }
    let state = try fleet.status("pair")
    #expect(state["done"] as? Int == 6 && state["pending"] as? Int == 0)
    let finished = try #require(state["finished"] as? [String: Any])
    #expect(finished["urls"] as? Int == 60 && finished["stored"] as? Int == 60)
    let lines = fleet.manifest("pair")
    #expect(lines.count == 60 && Set(lines.compactMap { $0["url"] as? String }) == Set(urls))
    #expect(lines.allSatisfy { $0["sha256"] is String && $0["format"] as? String == "png" })
    #expect(Set(lines.compactMap { $0["worker"] as? String }).count == 2, "both worked")
    #expect(servers.requests(paths.map { $0 + "&delay=0.02" }) == 60, "each URL once")
    let again = fleet.job(CLIEnvironment(), ["submit", "pair", "-i", "/dev/null"])
    #expect(again.status == 2)
    expectCleanError(again, contains: "job pair exists")
  }

  @Test("one URL in two shards, taken by two machines at once: downloaded once, shared")
  func coalesced() throws {
    let path = servers.distinctImages(1)[0] + "&delay=1.5"
    let url = servers.fault(path)
    // Two spellings of one key (a fragment is no part of it), so the submit keeps both.
    try fleet.submit("twice", [url + "#a", url + "#b"], ["--shard-size", "1"])
    let workers = try (0..<2).map { _ in try fleet.worker("twice") }
    for worker in workers {
      let (status, said) = worker.finish()
      #expect(status == 0, "\(said)")
    }
    #expect(servers.requests([path]) == 1, "one machine downloaded, the other waited for it")
    let statuses = fleet.manifest("twice").compactMap { $0["status"] as? String }.sorted()
    #expect(statuses == ["downloaded", "hit"], "\(statuses)")
  }

  @Test("coalesce = fleet: two prefetches on two machines at once download a URL once")
  func coalescedPrefetch() throws {
    let path = servers.distinctImages(1)[0] + "&delay=1.5"
    let machines = [CLIEnvironment(), CLIEnvironment()]
    let runs = try machines.map {
      try $0.start(
        ["prefetch", "--remote", fleet.queue, servers.fault(path)],
        environment: ["IMGCACHE_COALESCE": "fleet"])
    }
    for run in runs {
      run.waitUntilExit()
      #expect(run.terminationStatus == 0)
    }
    #expect(servers.requests([path]) == 1, "the second machine waited for the first's object")
    let refused = machines[0].run(
      ["fetch", servers.fault("/image/base.png")], environment: ["IMGCACHE_COALESCE": "fleet"])
    #expect(refused.status == 0, "no remote tier: nothing to coalesce through")
  }

  @Test("SIGTERM gives the shard back at once; the next worker takes it as a first delivery")
  func terminated() throws {
    let urls = servers.distinctImages(20).map { servers.fault($0 + "&delay=0.4") }
    try fleet.submit("term", urls, ["-j", "2"])
    let first = try fleet.worker("term")
    try fleet.wait("the shard taken") { (try fleet.status("term")["in_progress"] as? Int) == 1 }
    usleep(300_000)
    kill(first.process.processIdentifier, SIGTERM)
    #expect(first.finish().status == 143)
    let state = try fleet.status("term")
    #expect(state["pending"] as? Int == 1 && state["in_progress"] as? Int == 0)
    let (ended, said) = try fleet.worker("term").finish()
    #expect(ended == 0, "\(said)")
    #expect(said.contains("shard 0: 20 URLs\n"), "not a second delivery: \(said)")
    #expect(fleet.manifest("term").count == 20)
  }

  @Test("a killed worker's shard is taken over once its lease lapses, and completed")
  func takeOver() throws {
    let urls = servers.distinctImages(8).map { servers.fault($0 + "&delay=0.3") }
    try fleet.submit("heir", urls, ["-j", "1"])
    let lease = ["IMGCACHE_JOB_LEASE": "1s"]
    let killed = try fleet.worker("heir", environment: lease)
    try fleet.wait("the shard taken") { (try fleet.status("heir")["in_progress"] as? Int) == 1 }
    kill(killed.process.processIdentifier, SIGKILL)
    _ = killed.finish()
    let (ended, said) = try fleet.worker("heir", environment: lease).finish()
    #expect(ended == 0, "\(said)")
    #expect(said.contains("shard 0: 8 URLs (delivery 2)"), "\(said)")
    #expect(fleet.manifest("heir").count == 8)
    let state = try fleet.status("heir")
    #expect(state["done"] as? Int == 1)
    // The killed worker shows as the one a shard was taken over from.
    let takeovers = try #require(state["takeovers"] as? [[String: Any]])
    #expect(takeovers.count == 1 && takeovers.first?["shards"] as? Int == 1, "\(takeovers)")
  }

  @Test("a shard whose workers always die ends in the dead list, and the job completes")
  func poison() throws {
    let urls = servers.distinctImages(4).map { servers.fault($0 + "&delay=2") }
    try fleet.submit("poison", urls, ["-j", "1"])
    let policy = ["IMGCACHE_JOB_LEASE": "1s", "IMGCACHE_MAX_DELIVERIES": "2"]
    for delivery in 1...2 {
      let victim = try fleet.worker("poison", environment: policy)
      try fleet.wait("delivery \(delivery)") {
        ((try? String(contentsOfFile: victim.log, encoding: .utf8)) ?? "").contains("shard 0:")
      }
      kill(victim.process.processIdentifier, SIGKILL)
      _ = victim.finish()
    }
    let (ended, said) = try fleet.worker("poison", environment: policy).finish()
    #expect(ended == 0, "\(said)")
    #expect(said.contains("1 shards moved to the dead list"), "\(said)")
    let state = try fleet.status("poison")
    #expect(state["dead"] as? Int == 1 && state["done"] as? Int == 0)
  }

  @Test("job cancel: the worker gives its shard back and ends; delete removes the job")
  func cancel() throws {
    let urls = servers.distinctImages(10).map { servers.fault($0 + "&delay=1") }
    try fleet.submit("stop", urls, ["-j", "1"])
    let running = try fleet.worker("stop", environment: ["IMGCACHE_JOB_LEASE": "1s"])
    try fleet.wait("the shard taken") { (try fleet.status("stop")["in_progress"] as? Int) == 1 }
    #expect(fleet.job(CLIEnvironment(), ["cancel", "stop"]).status == 0)
    let (ended, said) = running.finish()
    #expect(ended == 0 && said.contains("job stop was cancelled"), "\(said)")
    let state = try fleet.status("stop")
    #expect(state["state"] as? String == "cancelled" && state["pending"] as? Int == 1)
    #expect(fleet.job(CLIEnvironment(), ["delete", "stop"]).status == 0)
    #expect(fleet.job(CLIEnvironment(), ["delete", "stop"]).status == 1)
    #expect(redis.redisCLI(0, ["KEYS", "imgcache:job:stop*"]) == "")
  }

  @Test("job delete under a running worker: the worker says the job was deleted")
  func deletedUnderWorker() throws {
    let urls = servers.distinctImages(3).map { servers.fault($0 + "&delay=1") }
    try fleet.submit("gone", urls, ["-j", "1"])
    let running = try fleet.worker("gone")
    try fleet.wait("the shard taken") { (try fleet.status("gone")["in_progress"] as? Int) == 1 }
    #expect(fleet.job(CLIEnvironment(), ["delete", "gone"]).status == 0)
    let (_, said) = running.finish()
    #expect(said.contains("job gone was deleted"), "\(said)")
    #expect(!said.contains("another worker finished it first"), "\(said)")
    #expect(redis.redisCLI(0, ["KEYS", "imgcache:job:gone*"]) == "", "nothing written back")
  }

  @Test("bad names, no queue, no job, a record asking for what a job may not: one line each")
  func refusals() throws {
    let machine = CLIEnvironment()
    expectCleanError(fleet.job(machine, ["status", "a:b"]), contains: "job name 'a:b'")
    let noQueue = machine.run(["job", "status", "x"])
    #expect(noQueue.status == 2)
    expectCleanError(noQueue, contains: "no job queue")
    let missing = fleet.job(machine, ["work", "nothing"])
    #expect(missing.status == 2)
    expectCleanError(missing, contains: "no job nothing")
    // A URL with credentials part way: refused, and nothing of the job is left.
    let list = try machine.root.write(
      "creds.txt", Array("https://a.example/1.png\nhttps://u:secret@a.example/2.png\n".utf8))
    let creds = fleet.job(machine, ["submit", "creds", "-i", list, "--shard-size", "1"])
    #expect(creds.status == 2 && !creds.stderr.contains("secret"))
    expectCleanError(creds, contains: "URL 2 of the list has credentials")
    expectCleanError(fleet.job(machine, ["status", "creds"]), contains: "no job creds")
    try fleet.submit("hostile", [servers.fault("/image/base.png")])
    _ = redis.redisCLI(
      0, ["HSET", "imgcache:job:hostile", "options", #"{"policy":{"cacert":"/x"}}"#])
    let refused = fleet.job(machine, ["work", "hostile"])
    #expect(refused.status == 2)
    expectCleanError(refused, contains: "cacert, which a job may not")
    _ = redis.redisCLI(0, ["HSET", "imgcache:job:hostile", "options", "[1"])
    expectCleanError(fleet.job(machine, ["work", "hostile"]), contains: "options cannot be read")
    _ = redis.redisCLI(
      0, ["HSET", "imgcache:job:hostile:manifest", "0", "{\"url\":\"ok\"}\n\u{1B}[31mevil\n"])
    let listed = fleet.job(machine, ["manifest", "hostile"])
    #expect(listed.stdout == "{\"url\":\"ok\"}\n", "\(listed.stdout)")
    #expect(listed.stderr.contains("1 malformed"), "\(listed.stderr)")
  }
}
