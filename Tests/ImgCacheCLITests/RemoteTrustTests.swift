import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Whoever can write the store can share images, but never another key's, never an oversized
/// object, never a header line; a damaged object is a miss, not a failed backend.
@Suite("imgcache remote tier: what a remote object may not do", .serialized)
struct RemoteTrustTests {
  let machineA = CLIEnvironment()
  let machineB = CLIEnvironment()
  let servers = TestServers.shared

  /// The Redis key of the object of `url` (its cache key's SHA-256).
  private func objectKey(_ url: String) -> String { "imgcache:" + SHA256.hex(of: Array(url.utf8)) }

  @Test("another key's object is refused, even when the origin 404s; the backend stays in use")
  func anotherKeysObject() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let urls = servers.distinctImages(2).map { servers.fault($0) }
    #expect(machineA.run(["fetch"] + remote + urls).status == 0)
    let missing = servers.fault("/status/404?id=\(UUID().uuidString.prefix(8))")
    #expect(redis.redisCLI(0, ["COPY", objectKey(urls[0]), objectKey(missing)]) == "1")
    let fetched = machineB.run(["prefetch", "--json"] + remote + [missing, urls[1]])
    let records = Dictionary(
      CLIEnvironment.records(fetched).map { ($0["url"] as? String ?? "", $0) }
    ) {
      $1
    }
    #expect(records[missing]?["status"] as? String == "error", "\(fetched.stdout)")
    #expect(records[urls[1]]?["source"] as? String == "remote", "the backend still serves")
    let stats = try machineB.counters()
    #expect(stats["remote_corrupt"] as? Int == 1 && stats["remote_errors"] as? Int == 0, "\(stats)")
    #expect(fetched.stderr.contains("stored for another key"), "\(fetched.stderr)")
  }

  @Test("a tampered object is a miss counted once; the download writes over it")
  func tamperedObject() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let urls = servers.distinctImages(3).map { servers.fault($0) }
    #expect(machineA.run(["fetch"] + remote + urls).status == 0)
    #expect(!redis.redisCLI(0, ["HSET", objectKey(urls[0]), "body", "not the image"]).isEmpty)
    #expect(!redis.redisCLI(0, ["HSET", objectKey(urls[1]), "meta", "{not json"]).isEmpty)
    let fetched = machineB.run(["prefetch", "--json"] + remote + urls)
    #expect(fetched.status == 0, "\(fetched.stderr)")
    let sources = Dictionary(
      CLIEnvironment.records(fetched).map { ($0["url"] as? String ?? "", $0["source"] as? String) }
    ) { $1 }
    #expect(urls.map { sources[$0] } == ["local", "local", "remote"], "\(fetched.stdout)")
    let stats = try machineB.counters()
    #expect(stats["remote_corrupt"] as? Int == 2 && stats["remote_errors"] as? Int == 0, "\(stats)")
    #expect(machineB.run(["verify", "--full"]).status == 0)
    // Written over by machine B's downloads: a third machine gets all three from the store.
    let machineC = CLIEnvironment()
    let third = machineC.run(["prefetch", "--json"] + remote + urls)
    #expect(CLIEnvironment.records(third).allSatisfy { $0["source"] as? String == "remote" })
  }

  /// Rewrites the metadata JSON of `url`'s object in Redis.
  private func editMetadata(
    _ redis: RemoteStores, _ url: String, _ edit: (inout [String: Any]) -> Void
  ) throws {
    let json = redis.redisCLI(0, ["HGET", objectKey(url), "meta"])
    var metadata = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    edit(&metadata)
    let text = String(decoding: try JSONSerialization.data(withJSONObject: metadata), as: UTF8.self)
    #expect(redis.redisCLI(0, ["HSET", objectKey(url), "meta", text]) == "0")
  }

  @Test("metadata is not trusted: sizes re-measured, a future time clamped, CR/LF refused")
  func hostileMetadata() throws {
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let id = UUID().uuidString.prefix(8)
    let fresh = servers.fault("/origin?id=\(id)&cc=max-age%3D3600")
    let urls = servers.distinctImages(1).map { servers.fault($0) } + [fresh]
    let injected = servers.fault("/etag?v=\(id)")
    #expect(machineA.run(["fetch"] + remote + urls + [injected]).status == 0)
    let image = Fixtures.image("base.png")
    try editMetadata(redis, urls[0]) {
      $0["width"] = 99_999
      $0["height"] = 1
      $0["format"] = "gif"
    }
    try editMetadata(redis, fresh) {
      $0["received"] = Date().timeIntervalSince1970 + 10 * 365 * 86_400
    }
    try editMetadata(redis, injected) { $0["etag"] = "\"\(id)\"\r\nX-Injected: 1" }
    let fetched = machineB.run(["fetch", "--json"] + remote + [urls[0], injected])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    let records = CLIEnvironment.records(fetched)
    #expect(records.map { $0["source"] as? String } == ["remote", "local"], "\(fetched.stderr)")
    let copy = machineB.run(["fetch", "--json", "--freshness", "http"] + remote + [fresh])
    #expect(CLIEnvironment.records(copy).first?["source"] as? String == "remote")
    #expect(
      records[0]["width"] as? Int == image.width && records[0]["height"] as? Int == image.height)
    #expect(records[0]["format"] as? String == "png")
    let query = try #require(
      CLIEnvironment.records(machineB.run(["query", "--json", fresh])).first)
    let until = try #require(query["fresh_until"] as? String)
    let formatter = ISO8601DateFormatter()
    let date = try #require(formatter.date(from: until))
    #expect(date < Date().addingTimeInterval(7_200), "received clamped to now: \(until)")
    #expect(try machineB.counters()["remote_corrupt"] as? Int == 1)
    let etag = try #require(
      CLIEnvironment.records(machineB.run(["query", "--json", injected])).first)
    #expect(etag["etag"] as? String == "\"\(id)\"", "the origin's own ETag")
  }

  @Test("max_filesize applies to remote objects (Redis and WebDAV)", arguments: ["redis", "dav"])
  func oversized(store: String) throws {
    let stores = store == "redis" ? RemoteStores(redis: 1) : RemoteStores(dav: true)
    let backend =
      store == "redis"
      ? "redis://127.0.0.1:\(stores.redis.first?.port ?? 0)"
      : "http://127.0.0.1:\(stores.dav?.port ?? 0)/cache"
    let urls = servers.distinctImages(2).map { servers.fault($0) }
    #expect(machineA.run(["fetch", "--remote", backend] + urls).status == 0)
    let attributes = try FileManager.default.attributesOfItem(
      atPath: Fixtures.image("base.png").path)
    let size = try #require((attributes[.size] as? NSNumber)?.int64Value)
    let limit = String(size - 1)
    let small = machineB.run([
      "fetch", "--json", "--max-filesize", limit, "--remote", backend, urls[0],
    ])
    #expect(
      small.status != 0 && CLIEnvironment.records(small).first?["source"] as? String != "remote")
    let stats = try machineB.counters()
    #expect(stats["remote_hits"] as? Int == 0 && stats["remote_misses"] as? Int == 1, "\(stats)")
    #expect(stats["remote_errors"] as? Int == 0)
    let enough = machineB.run([
      "fetch", "--json", "--max-filesize", String(size), "--remote", backend, urls[1],
    ])
    #expect(
      CLIEnvironment.records(enough).first?["source"] as? String == "remote", "\(enough.stderr)")
  }
}
