import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheRedis

/// The stream commands' replies (issue 38's work queue), from a real redis-server and from a
/// hostile one: typed entries, or a `.network` error naming the command.
@Suite("Redis streams: XREADGROUP, XAUTOCLAIM and XPENDING replies, checked")
struct RedisStreamsTests {
  func bulk(_ text: String) -> RedisValue { .string(Data(text.utf8)) }

  @Test("a real server's replies read as the entries, cursors and counts it holds")
  func realServer() throws {
    let stores = RemoteStores(redis: 1)
    let endpoint = try RedisEndpoint(
      url: "redis://127.0.0.1:\(stores.redis[0].port)", display: "redis", connectTimeout: 2)
    let connection = try RedisConnection(
      endpoint, name: "imgcache:test", deadline: RedisDeadline(seconds: 5))
    func command(_ words: [String]) throws -> RedisValue {
      try connection.command(words.map(RedisArgument.text), deadline: RedisDeadline(seconds: 5))
    }
    _ = try command(["XGROUP", "CREATE", "jobs", "workers", "0", "MKSTREAM"])
    for shard in 0..<3 {
      _ = try command(["XADD", "jobs", "*", "shard", "\(shard)", "urls", "https://a/\(shard)"])
    }
    let read = try RedisStreams.readGroup(
      try command(["XREADGROUP", "GROUP", "workers", "w1", "COUNT", "2", "STREAMS", "jobs", ">"]),
      stream: "jobs")
    #expect(read.map { $0.fields?["shard"] } == [Data("0".utf8), Data("1".utf8)])
    let pending = try RedisStreams.pendingSummary(try command(["XPENDING", "jobs", "workers"]))
    #expect(pending == PendingSummary(count: 2, consumers: ["w1": 2]))
    let claimed = try RedisStreams.autoClaim(
      try command(["XAUTOCLAIM", "jobs", "workers", "w2", "0", "0-0", "COUNT", "10"]))
    #expect(claimed.entries.map(\.id) == read.map(\.id) && claimed.next == StreamID("0-0"))
    let idle = try RedisStreams.readGroup(
      try command([
        "XREADGROUP", "GROUP", "workers", "w2", "COUNT", "5", "BLOCK", "10", "STREAMS", "jobs", ">",
      ]),
      stream: "jobs")
    #expect(idle.count == 1)
    let none = try RedisStreams.readGroup(
      try command(["XREADGROUP", "GROUP", "workers", "w2", "BLOCK", "10", "STREAMS", "jobs", ">"]),
      stream: "jobs")
    #expect(none.isEmpty, "a timeout is no entry")
    #expect(
      try RedisStreams.entries(try command(["XRANGE", "jobs", "-", "+"]), "XRANGE").count == 3)
  }

  @Test("IDs are read strictly")
  func ids() {
    #expect(StreamID("1700000000000-3")?.description == "1700000000000-3")
    for bad in ["", "1", "-1-2", "1-", "a-1", "1-2-3", "99999999999999999999-0", " 1-2"] {
      #expect(StreamID(bad) == nil, "\(bad)")
    }
    #expect(StreamID("1-2")! < StreamID("2-0")!)
  }

  @Test("another shape, another stream's entries, odd fields: a malformed reply, never a trap")
  func hostile() {
    let entry: RedisValue = .array([bulk("1-1"), .array([bulk("urls"), bulk("https://a/x")])])
    #expect(throws: CacheError.self) {
      try RedisStreams.readGroup(
        .array([.array([bulk("other"), .array([entry])])]), stream: "jobs")
    }
    for bad: RedisValue in [
      .integer(1), .array([.array([bulk("jobs")])]),
      .array([.array([bulk("jobs"), .array([.array([bulk("1-1"), .array([bulk("odd")])])])])]),
      .array([.array([bulk("jobs"), .array([.array([bulk("x"), .array([])])])])]),
      .array([.array([bulk("jobs"), .array([.array([bulk("1-1"), .integer(3)])])])]),
      .array([
        .array([bulk("jobs"), .array([.array([bulk("1-1"), .array([.integer(1), bulk("v")])])])])
      ]),
    ] {
      #expect(throws: CacheError.self, "\(bad)") { try RedisStreams.readGroup(bad, stream: "jobs") }
    }
    #expect(throws: CacheError.self) { try RedisStreams.autoClaim(.array([bulk("0-0")])) }
    #expect(throws: CacheError.self) {
      try RedisStreams.pendingSummary(.array([.integer(-1), .null, .null, .null]))
    }
    #expect(throws: CacheError.self) {
      try RedisStreams.pendingSummary(
        .array([.integer(1), bulk("1-1"), bulk("1-1"), .array([.array([bulk("w"), bulk("x")])])]))
    }
    let deleted = try? RedisStreams.readGroup(
      .array([.array([bulk("jobs"), .array([.array([bulk("1-1"), .null])])])]), stream: "jobs")
    #expect(deleted?.first?.fields == nil && deleted?.count == 1, "a deleted pending entry")
  }
}
