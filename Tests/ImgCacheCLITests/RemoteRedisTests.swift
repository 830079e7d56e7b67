import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// The remote tier on real redis-servers: two "machines" (two cache directories) share one.
@Suite("imgcache remote tier on Redis", .serialized)
struct RemoteRedisTests {
  let machineA = CLIEnvironment()
  let machineB = CLIEnvironment()
  let servers = TestServers.shared

  @Test("the second machine gets every image from Redis: zero requests at the origin")
  func sharedCache() throws {
    let redis = RemoteStores(redis: 1)
    let remote = "redis://127.0.0.1:\(redis.redis[0].port)"
    let paths = servers.distinctImages(20)
    let urls = paths.map { servers.fault($0) }
    let first = machineA.run(["prefetch", "--remote", remote] + urls)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(servers.requests(paths) == 20)
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "20", "written back")
    let second = machineB.run(["prefetch", "--json", "--remote", remote] + urls)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(servers.requests(paths) == 20, "no request of the second machine reached the origin")
    let records = CLIEnvironment.records(second)
    #expect(records.count == 20 && records.allSatisfy { $0["source"] as? String == "remote" })
    let stats = try machineB.counters()
    #expect(stats["remote_hits"] as? Int == 20)
    #expect(stats["downloads"] as? Int == 0)
    #expect(machineB.run(["verify", "--full"]).status == 0, "ordinary verified local entries")
    // What the origin said about freshness travels with the copy.
    let fresh = servers.fault("/origin?id=\(UUID().uuidString.prefix(8))&cc=max-age%3D3600")
    #expect(machineA.run(["fetch", "--remote", remote, fresh]).status == 0)
    #expect(machineB.run(["fetch", "--freshness", "http", "--remote", remote, fresh]).status == 0)
    let copy = try #require(CLIEnvironment.records(machineB.run(["query", "--json", fresh])).first)
    #expect(copy["cache_control"] as? String == "max-age=3600" && copy["fresh"] as? Bool == true)
    // Now local: a third run asks neither the remote nor the origin.
    #expect(machineB.run(["fetch", "--remote", remote, urls[0]]).status == 0)
    #expect(try machineB.counters()["remote_hits"] as? Int == 21)
  }

  @Test("Redis killed mid-prefetch: the prefetch completes from the origin, one error, no retry")
  func killedMidPrefetch() throws {
    let redis = RemoteStores(redis: 1)
    let remote = "redis://127.0.0.1:\(redis.redis[0].port)"
    let urls = servers.distinctImages(40).map { servers.fault($0 + "&delay=0.05") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: imgcacheBinary)
    process.arguments = ["prefetch", "-j", "2", "--remote", remote] + urls
    process.environment = machineA.environment
    let stderr = Pipe()
    process.standardError = stderr
    try process.run()
    let deadline = Date().addingTimeInterval(20)
    while Int(redis.redisCLI(0, ["DBSIZE"])) ?? 0 < 5 && Date() < deadline { usleep(20_000) }
    kill(redis.redis[0].pid, SIGKILL)
    let warning = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(warning)")
    #expect(
      warning.contains("remote redis://127.0.0.1:\(redis.redis[0].port) failed"), "\(warning)")
    let stats = try machineA.counters()
    #expect(stats["downloads"] as? Int == 40)
    let failures = (stats["remote_errors"] as? Int ?? 0) + (stats["remote_timeouts"] as? Int ?? 0)
    #expect(failures == 1, "one error, then the backend is left alone: \(stats)")
  }

  @Test("a wrong password: a clear error counted, the fetch still succeeds; never printed")
  func wrongPassword() throws {
    let redis = RemoteStores(redis: 1, password: "right-secret")
    let port = redis.redis[0].port
    let url = servers.fault(servers.distinctImages(1)[0])
    let wrong = machineA.run([
      "fetch", "--json", "--remote", "redis://wrong-secret@127.0.0.1:\(port)", url,
    ])
    #expect(wrong.status == 0)
    #expect(wrong.stderr.contains("authentication refused"), "\(wrong.stderr)")
    #expect(try machineA.counters()["remote_errors"] as? Int == 1)
    let config = machineA.run(
      ["config", "get", "remote_storage"],
      environment: [
        "IMGCACHE_REMOTE_STORAGE": "redis://user:right-secret@127.0.0.1:\(port)"
      ])
    #expect(config.stdout.contains("redis://***@127.0.0.1:\(port)"), "\(config.stdout)")
    for output in [wrong.stdout, wrong.stderr, config.stdout, machineA.run(["stats"]).stdout] {
      #expect(!output.contains("secret"), "\(output)")
    }
    // The right one, over the unix socket too.
    let socket = "redis+unix://:right-secret@localhost\(redis.redis[0].socket)"
    #expect(machineB.run(["fetch", "--remote", socket, url]).status == 0)
    #expect(redis.redisCLI(0, ["DBSIZE"], password: "right-secret") == "1")
    let status = machineB.run(["remote", "status", "--remote", socket])
    #expect(status.status == 0 && status.stdout.contains("reachable, "), "\(status.stdout)")
  }

  @Test("read-only is never written; a tampered object is a miss, counted, not stored")
  func readOnlyAndTampered() throws {
    let redis = RemoteStores(redis: 1)
    let remote = "redis://127.0.0.1:\(redis.redis[0].port)"
    let paths = servers.distinctImages(2)
    let urls = paths.map { servers.fault($0) }
    #expect(machineA.run(["fetch", "--remote", remote + "|read-only", urls[0]]).status == 0)
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "0")
    #expect(machineA.run(["fetch", "--remote", remote, urls[1]]).status == 0)
    let key = redis.redisCLI(0, ["KEYS", "imgcache:*"])
    #expect(!redis.redisCLI(0, ["HSET", key, "body", "not the image"]).isEmpty)
    let tampered = machineB.run(["fetch", "--json", "--remote", remote, urls[1]])
    #expect(tampered.status == 0)
    #expect(CLIEnvironment.records(tampered).first?["source"] as? String == "local")
    #expect(tampered.stderr.contains("corrupt remote object"), "\(tampered.stderr)")
    #expect(servers.requests([paths[1]]) == 2, "the origin, again")
    let stats = try machineB.counters()
    #expect(stats["remote_corrupt"] as? Int == 1 && stats["remote_errors"] as? Int == 0, "\(stats)")
    #expect(machineB.run(["verify", "--full"]).status == 0)
  }

  @Test("not shared: credentials, headers, private; an --any body is a miss for others")
  func notShared() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let urls = servers.distinctImages(3).map { servers.fault($0) }
    #expect(machineA.run(["fetch", "-H", "X-Token: mine"] + remote + [urls[0]]).status == 0)
    #expect(machineA.run(["fetch", "-u", "me:secret"] + remote + [urls[1]]).status == 0)
    let id = UUID().uuidString.prefix(8)
    let personal = servers.fault("/origin?id=\(id)&cc=private%2C%20max-age%3D60")
    #expect(machineA.run(["fetch"] + remote + [personal]).status == 0)
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "0", "nothing of one user's went to the remote")
    let page = servers.fault("/html?id=\(id)")
    #expect(machineA.run(["fetch", "--any"] + remote + [page]).status == 0)
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "1")
    #expect(machineB.run(["fetch"] + remote + [page]).status == 9, "not an image, from the origin")
    let stats = try machineB.counters()
    #expect(stats["remote_misses"] as? Int == 1 && stats["remote_errors"] as? Int == 0, "\(stats)")
    #expect(machineB.run(["fetch", "--any"] + remote + [page]).status == 0)
  }

  @Test("servers=: 300 keys spread over 3 servers within 35 % of even")
  func spreadOverServers() throws {
    let redis = RemoteStores(redis: 3)
    let ports = redis.redis.map { String($0.port) }
    let remote = "redis://127.0.0.1:*|servers=\(ports.joined(separator: ","))"
    let urls = (0..<300).map { servers.nginx("base.png?shard=\($0)") }
    let input = urls.joined(separator: "\n") + "\n"
    #expect(machineA.run(["prefetch", "-i", "-", "--remote", remote], input: input).status == 0)
    let counts = (0..<3).map { Int(redis.redisCLI($0, ["DBSIZE"])) ?? 0 }
    #expect(counts.reduce(0, +) == 300)
    // Binomial: 100 ± 8.2 a server (the keys hold nginx's port, new each run); ±35 is over
    // four standard deviations, where ±25 failed about one run in a hundred ([72, 113, 115]).
    #expect(counts.allSatisfy { $0 >= 65 && $0 <= 135 }, "\(counts)")
    let pushed = machineA.run(["remote", "push", "--json", "--all", "--remote", remote])
    #expect(CLIEnvironment.records(pushed).first?["pushed"] as? Int == 300)
    #expect((0..<3).map { Int(redis.redisCLI($0, ["DBSIZE"])) ?? 0 } == counts, "same servers")
  }
}
