import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet
@testable import ImgCacheRedis

/// The Redis client on a real redis-server (docs/fleet.md, Connections): scripts sent once
/// and run by their SHA-1 after, one connection a role however many callers, each named.
@Suite("Redis client: scripts by SHA-1, one connection a role")
struct RedisClientTests {
  let stores = RemoteStores(redis: 1)

  var url: String { "redis://127.0.0.1:\(stores.redis[0].port)" }

  func client(_ role: String, limit: Int? = 1) throws -> RedisClient {
    RedisClient(
      try RedisEndpoint(url: url, display: "redis", connectTimeout: 2), role: role, limit: limit)
  }

  /// How many times the server ran `command` (`INFO commandstats`), 0 when never.
  func calls(_ command: String, on admin: RedisClient) throws -> Int {
    let info =
      try admin.call([.text("INFO"), .text("commandstats")], deadline: .init(seconds: 5)).text
      ?? ""
    guard
      let line = info.split(whereSeparator: \.isNewline).first(where: {
        $0.hasPrefix("cmdstat_\(command):")
      })
    else { return 0 }
    let field = line.split(separator: ",").first { $0.contains("calls=") } ?? ""
    return Int(field.split(separator: "=").last ?? "") ?? -1
  }

  /// The names of the server's clients (`CLIENT LIST`).
  func names(on admin: RedisClient) throws -> [String] {
    let list =
      try admin.call([.text("CLIENT"), .text("LIST")], deadline: .init(seconds: 5)).text ?? ""
    return list.split(whereSeparator: \.isNewline).compactMap { line in
      line.split(separator: " ").first { $0.hasPrefix("name=") }.map { String($0.dropFirst(5)) }
    }
  }

  @Test("a script is sent once (SCRIPT LOAD), run by its SHA-1 after, and again after a flush")
  func scriptsBySHA() throws {
    let (admin, client) = (try client("admin"), try client("queue"))
    let script = RedisScript("return tonumber(ARGV[1]) + 1")
    #expect(script.sha == SHA1.hex(of: Array(script.source.utf8)) && script.sha.count == 40)
    for number in 1...5 {
      let reply = try client.run(
        script, keys: [], [.text(String(number))], deadline: .init(seconds: 5))
      #expect(reply == .integer(Int64(number + 1)))
    }
    #expect(try calls("eval", on: admin) == 0)
    #expect(try calls("script|load", on: admin) == 1)
    #expect(try calls("evalsha", on: admin) == 6)  // the first refused (NOSCRIPT), then five
    _ = try admin.call([.text("SCRIPT"), .text("FLUSH")], deadline: .init(seconds: 5))
    let again = try client.run(script, keys: [], [.text("41")], deadline: .init(seconds: 5))
    #expect(again == .integer(42))
    #expect(try calls("script|load", on: admin) == 2)
  }

  @Test("eight callers at once share one connection of their role, named for it")
  func oneConnectionPerRole() async throws {
    let (admin, client) = (try client("admin"), try client("locks"))
    let answered = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<8 {
        group.addTask {
          var count = 0
          for index in 0..<25 {
            let reply = try? client.call(
              [.text("SET"), .text("k\(index)"), .text("v")], deadline: .init(seconds: 10))
            if reply == .status("OK") { count += 1 }
          }
          return count
        }
      }
      return await group.reduce(0, +)
    }
    #expect(answered == 200)
    #expect(try names(on: admin).filter { $0 == "imgcache:locks" }.count == 1)
  }

  @Test("a worker's queue, locks and politeness: one connection each, one for its subscription")
  func fleetRoles() throws {
    let admin = try client("admin")
    let queue = try JobQueue(name: "roles", queue: url, remote: [])
    _ = try queue.submit(
      urls: ["https://a.example/1.png"], shardSize: 1, options: JobOptions(), replace: false)
    let locks = try RedisFleetLocks(queue: url, remote: [])
    guard case .held(let name) = locks.attempt(key: "https://a.example/1.png") else {
      Issue.record("not taken")
      return
    }
    locks.release(name)
    let hosts = try RedisFleetHosts(queue: url, remote: [])
    defer { hosts.close() }
    for _ in 0..<200 where !hosts.isListening { usleep(10_000) }
    _ = hosts.reserve("a.example", interval: 1_000_000)
    var seen = [String: Int]()
    for _ in 0..<200 {
      seen = Dictionary(try names(on: admin).map { ($0, 1) }, uniquingKeysWith: +)
      if seen["imgcache:hosts"] != nil { break }
      usleep(10_000)
    }
    for role in ["queue", "locks", "hosts", "pauses"] {
      #expect(seen["imgcache:\(role)"] == 1, "\(role): \(seen)")
    }
  }
}
