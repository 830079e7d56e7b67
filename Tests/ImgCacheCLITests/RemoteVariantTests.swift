import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Variants through the remote tier: a fleet derives each variant once.
@Suite("imgcache variants shared through the remote tier", .serialized)
struct RemoteVariantTests {
  let machineA = CLIEnvironment()
  let machineB = CLIEnvironment()
  let servers = TestServers.shared

  @Test(
    "a variant derived on one machine is served from Redis on another: no origin, no derivation")
  func sharedVariant() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let paths = servers.distinctImages(2)
    let urls = paths.map { servers.fault($0) }
    let first = machineA.run(
      ["prefetch", "-q", "--resize", "16x16^", "--format", "png"] + remote + urls)
    #expect(first.status == 0, "\(first.stderr)")
    let countersA = try machineA.counters()
    #expect(countersA["derivations"] as? Int == 2)
    // The originals and their variants were written back.
    #expect(countersA["remote_writes"] as? Int == 4)
    let second = machineB.run(
      ["fetch", "--json", "--resize", "16x16^", "--format", "png"] + remote + urls)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(servers.requests(paths) == 2, "the second machine sent nothing to the origin")
    let countersB = try machineB.counters()
    #expect(countersB["derivations"] as? Int == 0)
    #expect(countersB["variant_hits"] as? Int == 2)
    for record in CLIEnvironment.records(second) {
      #expect(record["source"] as? String == "remote")
      #expect(record["status"] as? String == "hit")
      let variant = try #require(record["variant"] as? [String: Any])
      #expect(variant["width"] as? Int == 16 && variant["height"] as? Int == 16)
      #expect(variant["format"] as? String == "png")
      let path = try #require(record["path"] as? String)
      #expect(path.hasSuffix(".png"))
    }
    // The copy is linked to its original: removing the URL removes it too.
    let listed = machineB.run(["list", "--variants", "--urls"])
    #expect(listed.stdout.split(separator: "\n").count == 2, "\(listed.stdout)")
  }
}
