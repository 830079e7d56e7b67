import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// operation-timeout bounds a whole operation, and a backend that is merely slow is dropped.
@Suite("imgcache remote tier: slow and dribbling backends", .serialized)
struct RemoteHangTests {
  let machine = CLIEnvironment()
  let servers = TestServers.shared

  @Test("a Redis that sends a byte every half second holds a fetch operation-timeout, not 40 s")
  func dribble() throws {
    let redis = HostileRemote("redis-dribble", ["--interval", "0.5"])
    let url = servers.fault(servers.distinctImages(1)[0])
    let start = Date()
    let output = machine.run([
      "fetch", "--remote", "redis://127.0.0.1:\(redis.port)|operation-timeout=1s", url,
    ])
    let seconds = Date().timeIntervalSince(start)
    #expect(output.status == 0, "\(output.stderr)")
    #expect(seconds < 6, "took \(seconds) s")
    #expect(output.stderr.contains("timed out"), "\(output.stderr)")
    #expect(try machine.counters()["remote_timeouts"] as? Int == 1)
  }

  @Test("three answers in a row over half the operation timeout mark the backend failed")
  func slowAnswers() throws {
    let redis = HostileRemote("redis-slow", ["--delay", "0.6"])
    let urls = servers.distinctImages(12).map { servers.fault($0) }
    let output = machine.run(
      ["prefetch", "-j", "2", "--remote", "redis://127.0.0.1:\(redis.port)|operation-timeout=1s"]
        + urls)
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.contains("answers in a row"), "\(output.stderr)")
    let stats = try machine.counters()
    #expect(stats["remote_timeouts"] as? Int == 1 && stats["downloads"] as? Int == 12, "\(stats)")
    #expect(
      !redis.commands.contains("HSET"), "no write-back to a failed backend: \(redis.commands)")
  }
}
