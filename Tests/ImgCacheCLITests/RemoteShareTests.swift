import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// One rule decides what leaves the machine, for write-back and `remote push` alike.
@Suite("imgcache remote tier: what is shared", .serialized)
struct RemoteShareTests {
  let machine = CLIEnvironment()
  let servers = TestServers.shared

  @Test("remote push --all skips what write-back refuses: credentials, headers, cookies, private")
  func pushFollowsTheRule() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let urls = servers.distinctImages(4).map { servers.fault($0) }
    let jar = machine.root.path + "/cookies.txt"
    // Fetched without the remote: nothing written back yet.
    #expect(machine.run(["fetch", "-H", "X-Token: mine", urls[0]]).status == 0)
    #expect(machine.run(["fetch", "-u", "me:secret", urls[1]]).status == 0)
    #expect(machine.run(["fetch", "--cookie-jar", jar, urls[2]]).status == 0)
    let id = UUID().uuidString.prefix(8)
    let personal = servers.fault("/origin?id=\(id)&cc=private%2C%20max-age%3D60")
    #expect(machine.run(["fetch", personal]).status == 0)
    #expect(machine.run(["fetch", urls[3]]).status == 0)
    let pushed = machine.run(["remote", "push", "--json", "--all"] + remote)
    let report = try #require(CLIEnvironment.records(pushed).first)
    #expect(report["pushed"] as? Int == 1 && report["skipped"] as? Int == 4, "\(report)")
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "1")
    // What write-back wrote, push writes too: the same rule.
    let other = servers.fault(servers.distinctImages(1)[0])
    #expect(machine.run(["fetch"] + remote + [other]).status == 0)
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "2")
  }

  @Test("a data file replaced by a symlink is not followed by remote push")
  func symlinkedDataFile() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let urls = servers.distinctImages(2).map { servers.fault($0) }
    #expect(machine.run(["fetch"] + urls).status == 0)
    let secret = machine.root.path + "/secret.txt"
    try Data("TOP-SECRET-CONTENT".utf8).write(to: URL(fileURLWithPath: secret))
    let path = machine.run(["query", urls[0]]).stdout.trimmingCharacters(
      in: .whitespacesAndNewlines)
    #expect(unlink(path) == 0 && symlink(secret, path) == 0)
    let pushed = machine.run(["remote", "push", "--json", "--all"] + remote)
    #expect(CLIEnvironment.records(pushed).first?["pushed"] as? Int == 1, "\(pushed.stdout)")
    #expect(redis.redisCLI(0, ["DBSIZE"]) == "1")
    let keys = redis.redisCLI(0, ["KEYS", "imgcache:*"]).split(separator: "\n").map(String.init)
    for key in keys {
      #expect(!redis.redisCLI(0, ["HGET", key, "body"]).contains("TOP-SECRET"))
    }
  }
}
