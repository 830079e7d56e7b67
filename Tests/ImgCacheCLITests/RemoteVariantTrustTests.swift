import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A remote object under a variant's key must be that variant (docs/design.md, Variants):
/// authentic is not enough, and a copy stays linked to the original it was made from.
@Suite("imgcache variants: a remote object must be the variant it is stored as", .serialized)
struct RemoteVariantTrustTests {
  let machineA = CLIEnvironment()
  let servers = TestServers.shared
  let flags = ["--resize", "16x16^", "--format", "webp"]

  /// The Redis key of the object of cache key `key`.
  private func objectKey(_ key: String) -> String { "imgcache:" + SHA256.hex(of: Array(key.utf8)) }

  private func metadata(_ redis: RemoteStores, _ key: String) throws -> [String: Any] {
    let json = redis.redisCLI(0, ["HGET", objectKey(key), "meta"])
    return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
  }

  private func setMetadata(_ redis: RemoteStores, _ key: String, _ value: [String: Any]) throws {
    let text = String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    #expect(redis.redisCLI(0, ["HSET", objectKey(key), "meta", text]) == "0")
  }

  /// A Redis of this test's own, and the flag that names it.
  private func store() -> (redis: RemoteStores, remote: [String]) {
    let redis = RemoteStores(redis: 1)
    return (redis, ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"])
  }

  /// Machine A derives the variant of a new URL and writes both back; returns the URL, the
  /// original's key and the variant's.
  private func derivedOnA(_ remote: [String]) throws -> (url: String, original: String, key: String)
  {
    let url = servers.fault(servers.distinctImages(1)[0])
    let made = machineA.run(["fetch", "--json"] + flags + remote + [url])
    #expect(made.status == 0, "\(made.stderr)")
    let record = try #require(CLIEnvironment.records(made).first)
    let variant = try #require(record["variant"] as? [String: Any])
    return (
      url, try #require(variant["original_key"] as? String), try #require(record["key"] as? String)
    )
  }

  @Test("the original posing as its variant is refused, --any or not; the variant is derived")
  func originalPosingAsVariant() throws {
    let (redis, remote) = store()
    let (url, original, key) = try derivedOnA(remote)
    // The original's object, under the variant's key, with the variant's own source fields.
    var posing = try metadata(redis, original)
    let genuine = try metadata(redis, key)
    #expect(genuine["source_sha256"] as? String != nil, "a variant goes with its original")
    for field in ["source_sha256", "source_width", "source_height"] {
      posing[field] = genuine[field]
    }
    posing["key"] = key
    for any in [[], ["--any"]] {
      // Forged again each time: the machine that derives the variant writes it back.
      #expect(redis.redisCLI(0, ["COPY", objectKey(original), objectKey(key), "REPLACE"]) == "1")
      try setMetadata(redis, key, posing)
      let machine = CLIEnvironment()
      let fetched = machine.run(["fetch", "--json"] + any + flags + remote + [url])
      #expect(fetched.status == 0, "\(fetched.stderr)")
      let variant = try #require(
        CLIEnvironment.records(fetched).first?["variant"] as? [String: Any])
      #expect(variant["width"] as? Int == 16 && variant["height"] as? Int == 16, "\(variant)")
      #expect(variant["format"] as? String == "webp", "\(variant)")
      let counters = try machine.counters()
      #expect(counters["derivations"] as? Int == 1, "derived here: \(counters)")
      #expect(counters["remote_corrupt"] as? Int == 1, "\(counters)")
    }
  }

  @Test("a variant's object without its original (an older version's) is a miss: derived here")
  func variantWithoutSource() throws {
    let (redis, remote) = store()
    let (url, _, key) = try derivedOnA(remote)
    var older = try metadata(redis, key)
    for field in ["source_sha256", "source_width", "source_height"] { older[field] = nil }
    try setMetadata(redis, key, older)
    let machine = CLIEnvironment()
    #expect(machine.run(["fetch"] + flags + remote + [url]).status == 0)
    #expect(try machine.counters()["derivations"] as? Int == 1)
  }

  @Test("a variant copied from the remote tier is linked to the original it was made from")
  func copyLinkedToItsSource() throws {
    let (redis, remote) = store()
    let (url, original, key) = try derivedOnA(remote)
    let machine = CLIEnvironment()
    #expect(machine.run(["fetch"] + flags + remote + [url]).status == 0)
    #expect(try machine.counters()["derivations"] as? Int == 0, "the copy was served")
    let source = try metadata(redis, original)["sha256"] as? String
    let script = """
      import sqlite3, sys
      row = sqlite3.connect(sys.argv[1]).execute(
          "SELECT source_sha256 FROM variant WHERE key = ?", (sys.argv[2],)).fetchone()
      print(row[0].hex() if row and row[0] else "none")  # 32 bytes in schema v9
      """
    let linked = run(
      "/usr/bin/env", ["python3", "-c", script, machine.cacheDirectory + "/index.sqlite", key])
    #expect(source != nil && linked.stdout.trimmingCharacters(in: .newlines) == source)
  }
}
