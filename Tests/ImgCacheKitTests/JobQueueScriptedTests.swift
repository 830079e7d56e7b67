import Foundation
import Synchronization
import Testing

@testable import ImgCacheFleet
@testable import ImgCacheRedis

/// A Redis that answers from a script: each command's and each script's replies in order,
/// every request recorded. No server: the queue's decisions are fed any reply, hostile
/// ones included.
final class ScriptedRedis: RedisCommands {
  private struct State {
    var replies = [String: [RedisValue]]()
    var sent = [String]()
  }
  private let state = Mutex(State())

  /// `replies` by command name (`XPENDING`) or script (`script:` and its first line's name,
  /// ``name(of:)``), answered in order; a request with none left gets an error reply.
  init(_ replies: [String: [RedisValue]]) { state.withLock { $0.replies = replies } }

  /// The requests made, in order: a command's name, or `script:NAME` and the script's keys.
  var sent: [String] { state.withLock { $0.sent } }

  static func name(of script: RedisScript) -> String {
    let scripts: [(String, RedisScript)] = [
      ("bury", JobQueue.buryScript), ("takeover", JobQueue.takeoverScript),
      ("started", JobQueue.startedScript), ("renew", JobQueue.renewScript),
      ("giveBack", JobQueue.giveBackScript), ("finish", JobQueue.finishScript),
    ]
    return "script:" + (scripts.first { $0.1.sha == script.sha }?.0 ?? script.sha)
  }

  private func answer(_ name: String, _ detail: String) throws -> RedisValue {
    let reply = state.withLock { state -> RedisValue in
      state.sent.append(detail)
      guard var queue = state.replies[name], !queue.isEmpty else {
        return .error("ERR unscripted \(name)")
      }
      let first = queue.removeFirst()
      state.replies[name] = queue
      return first
    }
    if case .error(let text) = reply { throw CacheError(.network, "redis: \(text)") }
    return reply
  }

  func call(_ words: [RedisArgument], deadline: RedisDeadline, maxReply: Int64) throws
    -> RedisValue
  {
    guard case .bytes(let first)? = words.first else { return .error("ERR empty") }
    let name = String(decoding: first, as: UTF8.self)
    return try answer(name, name)
  }

  func run(
    _ script: RedisScript, keys: [String], _ arguments: [RedisArgument],
    deadline: RedisDeadline, maxReply: Int64
  ) throws -> RedisValue {
    let name = Self.name(of: script)
    let texts = arguments.compactMap { argument -> String? in
      if case .bytes(let data) = argument { return String(decoding: data, as: UTF8.self) }
      return nil
    }
    return try answer(name, ([name] + texts).joined(separator: " "))
  }
}

/// The queue's lease decisions (docs/fleet.md, Leases) on a scripted Redis: what `take` does
/// with lapsed, given-back, deleted, malformed and over-delivered shards.
@Suite("Job queue on a scripted Redis: take's decisions, reply by reply")
struct JobQueueScriptedTests {
  func bulk(_ text: String) -> RedisValue { .string(Data(text.utf8)) }

  /// A pending entry as XPENDING's extended form has it.
  func pending(_ id: String, _ consumer: String, deliveries: Int64) -> RedisValue {
    .array([bulk(id), bulk(consumer), .integer(100_000), .integer(deliveries)])
  }

  /// An entry as XCLAIM and XRANGE have it (nil fields: deleted).
  func entry(_ id: String, _ fields: [String]?) -> RedisValue {
    .array([bulk(id), fields.map { .array($0.map(bulk)) } ?? .null])
  }

  func take(_ redis: ScriptedRedis, maxDeliveries: Int = 3) throws -> (
    taken: JobQueue.Taken, buried: Int
  ) {
    try JobQueue(name: "photos", client: redis).take(
      consumer: "w2", lease: .seconds(30), maxDeliveries: maxDeliveries, block: .zero)
  }

  @Test("a lapsed shard is claimed and counted as taken over from its last holder")
  func takeover() throws {
    let redis = ScriptedRedis([
      "HGET": [bulk("open")], "XPENDING": [.array([pending("5-0", "w1", deliveries: 1)])],
      "XCLAIM": [.array([entry("5-0", ["shard", "4", "urls", "https://a/1\nhttps://a/2"])])],
      "script:takeover": [.integer(1)],
    ])
    let (taken, buried) = try take(redis)
    guard case .shard(let shard) = taken else {
      Issue.record("\(taken)")
      return
    }
    #expect(shard.index == 4 && shard.urls.count == 2 && shard.deliveries == 2 && buried == 0)
    #expect(redis.sent == ["HGET", "XPENDING", "XCLAIM", "script:takeover w1"])
  }

  @Test("a shard given back is claimed without a takeover counted")
  func givenBack() throws {
    let redis = ScriptedRedis([
      "HGET": [bulk("open")],
      "XPENDING": [.array([pending("5-0", JobQueue.givenBackHolder, deliveries: 0)])],
      "XCLAIM": [.array([entry("5-0", ["shard", "4", "urls", "https://a/1"])])],
    ])
    guard case .shard(let shard) = try take(redis).taken else {
      Issue.record("not taken")
      return
    }
    #expect(shard.deliveries == 1)
    #expect(!redis.sent.contains { $0.hasPrefix("script:takeover") })
  }

  @Test("a shard delivered max_deliveries times is buried, never claimed; then a new one")
  func buried() throws {
    let redis = ScriptedRedis([
      "HGET": [bulk("open")], "XPENDING": [.array([pending("5-0", "w1", deliveries: 3)])],
      "script:bury": [.integer(1)],
      "XREADGROUP": [
        .array([
          .array([
            bulk("imgcache:job:photos:shards"),
            .array([entry("6-0", ["shard", "5", "urls", "https://a/9"])]),
          ])
        ])
      ],
      "script:started": [.integer(1)],
    ])
    let (taken, buried) = try take(redis)
    #expect(buried == 1)
    guard case .shard(let shard) = taken else {
      Issue.record("\(taken)")
      return
    }
    #expect(shard.index == 5 && shard.deliveries == 1)
    #expect(
      redis.sent == [
        "HGET", "XPENDING", "script:bury workers 5-0 w1 90000 3", "XREADGROUP",
        "script:started w2",
      ])
  }

  @Test("an entry deleted while pending is acknowledged; a malformed new one buried at once")
  func deletedAndMalformed() throws {
    let redis = ScriptedRedis([
      "HGET": [bulk("open")], "XPENDING": [.array([pending("5-0", "w1", deliveries: 1)])],
      "XCLAIM": [.array([entry("5-0", nil)])], "XACK": [.integer(1)],
      "XREADGROUP": [
        .array([
          .array([bulk("imgcache:job:photos:shards"), .array([entry("6-0", ["shard", "x"])])])
        ])
      ],
      "script:bury": [.integer(1)],
    ])
    let (taken, buried) = try take(redis)
    #expect(taken == .none && buried == 1)
    #expect(
      redis.sent == [
        "HGET", "XPENDING", "XCLAIM", "XACK", "XREADGROUP", "script:bury workers 6-0 w2 0 0",
      ])
  }

  @Test("a cancelled job hands out nothing and asks nothing more")
  func cancelled() throws {
    let redis = ScriptedRedis(["HGET": [bulk("cancelled")]])
    #expect(try take(redis).taken == .cancelled)
    #expect(redis.sent == ["HGET"])
  }

  @Test("hostile replies are errors naming the command, never a trap or a shard")
  func hostile() throws {
    let replies: [RedisValue] = [
      .integer(7), .array([.array([bulk("5-0"), bulk("w1"), .integer(-1), .integer(1)])]),
      .array([.array([bulk("not-an-id"), bulk("w1"), .integer(1), .integer(1)])]),
    ]
    for reply in replies {
      let redis = ScriptedRedis(["HGET": [bulk("open")], "XPENDING": [reply]])
      #expect(throws: CacheError.self) { try take(redis) }
    }
    let stranger = ScriptedRedis([
      "HGET": [bulk("open")], "XPENDING": [.array([])],
      "XREADGROUP": [
        .array([
          .array([bulk("another:stream"), .array([entry("6-0", ["shard", "1", "urls", "u"])])])
        ])
      ],
    ])
    #expect(throws: CacheError.self) { try take(stranger) }
  }
}
