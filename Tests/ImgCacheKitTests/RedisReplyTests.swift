import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheRedis
@testable import ImgCacheRemote

/// RESP2 replies read from a server that says what a test wants (`hostile_remote.py --mode
/// redis-reply`): arrays within a budget of bytes, elements and nesting, never a trap or an
/// allocation the server chose.
@Suite("Redis replies: arrays, within a budget")
struct RedisReplyTests {
  /// The reply to one command from a server that answers `raw`.
  func reply(_ raw: String, maxBulk: Int64 = 1 << 20, maxElements: Int64 = 1_000) throws
    -> RedisValue
  {
    let hex = Data(raw.utf8).map { String(format: "%02x", $0) }.joined()
    let server = HostileRemote("redis-reply", ["--reply", hex])
    let endpoint = try RedisEndpoint(
      url: "redis://127.0.0.1:\(server.port)", display: "redis://127.0.0.1", connectTimeout: 2)
    let connection = try RedisConnection(
      endpoint, name: "imgcache:test", deadline: RedisDeadline(seconds: 2))
    try connection.send(
      [.text("XRANGE"), .text("s"), .text("-"), .text("+")], deadline: RedisDeadline(seconds: 2))
    return try connection.reply(
      deadline: RedisDeadline(seconds: 1), maxBulk: maxBulk, maxElements: maxElements)
  }

  @Test("nested arrays of every type, and a null array")
  func nested() throws {
    let value = try reply("*3\r\n$3\r\nabc\r\n*2\r\n:5\r\n$-1\r\n+OK\r\n")
    #expect(
      value == .array([.string(Data("abc".utf8)), .array([.integer(5), .null]), .status("OK")]))
    #expect(try reply("*-1\r\n") == .null)
    #expect(try reply("*0\r\n") == .array([]))
  }

  @Test("a count past the budget is refused before anything is allocated or read")
  func hugeCount() {
    #expect(throws: RedisReplyTooLarge.self) { try reply("*99999999999999\r\n") }
    #expect(throws: RedisReplyTooLarge.self) { try reply("*2\r\n*600\r\n*600\r\n") }
    #expect(throws: RedisReplyTooLarge.self) {
      try reply(
        "*2\r\n$600\r\n" + String(repeating: "x", count: 600) + "\r\n$600\r\n", maxBulk: 1_000)
    }
  }

  @Test("deep nesting, a bad count and a truncated array are errors, not traps or hangs")
  func malformed() {
    #expect(throws: CacheError.self) {
      try reply(String(repeating: "*1\r\n", count: 50) + ":1\r\n")
    }
    #expect(throws: CacheError.self) { try reply("*-5\r\n") }
    #expect(throws: CacheError.self) { try reply("*x\r\n") }
    #expect(throws: CacheError.self) { try reply("*3\r\n:1\r\n") }
  }
}
