import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet
@testable import ImgCacheRedis
@testable import ImgCacheTransport

/// A fleet's politeness on a real redis-server (docs/fleet.md, Politeness): starts reserved
/// one interval apart whoever asks, a pause seen by every machine, a Redis that is gone
/// leaving each machine to itself.
@Suite("Fleet politeness on Redis: reserved starts, shared pauses, a Redis gone")
struct FleetHostsTests {
  let stores = RemoteStores(redis: 1)

  func fleet() throws -> RedisFleetHosts {
    try RedisFleetHosts(queue: "redis://127.0.0.1:\(stores.redis[0].port)", remote: [])
  }

  /// `machine`'s answer once it is not `.pending` (its batch fetched): asked every 5 ms, for
  /// at most 10 s (a loaded machine's tasks may wait).
  func settled(_ machine: RedisFleetHosts, _ host: String, _ interval: Int64?) -> FleetAnswer? {
    for _ in 0..<2_000 {
      let answer = machine.reserve(host, interval: interval)
      if answer != .pending { return answer }
      usleep(5_000)
    }
    return .pending
  }

  @Test("two machines asking for one host get starts one interval apart, whoever takes them")
  func reservations() throws {
    let (a, b) = (try fleet(), try fleet())
    let interval: Int64 = 200_000_000  // 5/s
    // Each start, on this process's clock: when it was handed out, plus its wait.
    var starts = [Int64]()
    for machine in [a, b, a, b, a, b, a, b, a, b] {
      let asked = Int64(DispatchTime.now().uptimeNanoseconds)
      guard case .start(let wait) = try #require(settled(machine, "one.example", interval)) else {
        Issue.record("not a start")
        return
      }
      starts.append(asked + wait)
    }
    // Never two closer than an interval (less what a round trip may blur), in whatever order
    // the two machines' batches interleave.
    let sorted = starts.sorted()
    for (later, earlier) in zip(sorted.dropFirst(), sorted) {
      #expect(later - earlier > interval - 30_000_000, "\(later - earlier) ns apart")
    }
    #expect(try #require(settled(a, "other.example", interval)) == .start(in: 0))
    #expect(try #require(a.reserve("one.example", interval: nil)) == .start(in: 0), "no rate")
  }

  @Test("a pause one machine hears reaches the other by its subscription, without asking")
  func pauses() throws {
    let (a, b) = (try fleet(), try fleet())
    for machine in [a, b] {
      for _ in 0..<400 where !machine.isListening { usleep(5_000) }
      #expect(machine.isListening)
    }
    a.pause("slow.example", for: 2_000_000_000)
    b.pause("slow.example", for: 500_000_000)
    // b asks nothing: the message arrives and its table applies it.
    var answer = b.reserve("slow.example", interval: nil)
    for _ in 0..<400 {
      if case .paused(let left) = answer, left > 1_000_000_000 { break }
      usleep(5_000)
      answer = b.reserve("slow.example", interval: nil)
    }
    guard case .paused(let left) = answer else {
      Issue.record("not paused: \(String(describing: answer))")
      return
    }
    #expect(left > 1_000_000_000 && left <= 2_000_000_000)
    #expect(
      a.reserve("slow.example", interval: 1_000_000) != .start(in: 0), "no start while paused")
    #expect(b.reserve("fast.example", interval: nil) == .start(in: 0))
    // A machine that joins later looks the pause up on its first sight of the host.
    let c = try fleet()
    _ = c.reserve("slow.example", interval: nil)
    guard case .paused = settled(c, "slow.example", 1_000_000) else {
      Issue.record("the late machine does not see the pause")
      return
    }
  }

  @Test("a key's lock: one machine holds it, the other finds it busy until it is let go")
  func keyLocks() throws {
    let url = "redis://127.0.0.1:\(stores.redis[0].port)"
    let (a, b) = (
      try RedisFleetLocks(queue: url, remote: []), try RedisFleetLocks(queue: url, remote: [])
    )
    guard case .held(let name) = a.attempt(key: "https://img.example/1.png") else {
      Issue.record("not taken")
      return
    }
    #expect(b.attempt(key: "https://img.example/1.png") == .busy)
    #expect(b.isHeld(key: "https://img.example/1.png") == true)
    b.release(name)  // not b's: left alone
    #expect(a.attempt(key: "https://img.example/1.png") == .busy, "still held, by a")
    a.release(name)
    #expect(b.isHeld(key: "https://img.example/1.png") == false)
    guard case .held(let again) = b.attempt(key: "https://img.example/1.png") else {
      Issue.record("not taken after its release")
      return
    }
    b.release(again)
    kill(stores.redis[0].pid, SIGKILL)
    usleep(100_000)
    #expect(a.attempt(key: "https://img.example/2.png") == .unavailable)
    #expect(a.isHeld(key: "https://img.example/2.png") == nil)
  }

  @Test("a Redis that is gone: no answer, one failure, then quiet for the backoff")
  func gone() throws {
    let fleet = try fleet()
    kill(stores.redis[0].pid, SIGKILL)
    usleep(100_000)
    // The first admission asks for a batch (pending), whose failure leaves the fleet alone.
    #expect(fleet.reserve("a.example", interval: 1_000) == .pending)
    for _ in 0..<400 where fleet.reserve("a.example", interval: 1_000) != nil { usleep(5_000) }
    #expect(fleet.reserve("a.example", interval: 1_000) == nil)
    #expect(fleet.failures.count >= 1)
    #expect(fleet.failures.last?.isEmpty == false)
  }

  @Test("a published message is outside input: only a printable host and a wait up to a day")
  func messages() {
    func message(_ payload: String, kind: String = "message") -> RedisValue {
      .array([.string(Data(kind.utf8)), .string(Data("c".utf8)), .string(Data(payload.utf8))])
    }
    #expect(
      RedisPauseListener.pause(in: message("img.example:443\n2000000"))! == (
        "img.example:443", 2_000_000_000
      ))
    for bad in [
      "img.example\n-1", "img.example\n86400000001", "img.example\n99999999999999999999",
      "\n5", "a b\n5", "img.example", "img.example\n5\n6",
      String(repeating: "h", count: 301) + "\n5",
    ] {
      #expect(RedisPauseListener.pause(in: message(bad)) == nil, "\(bad)")
    }
    #expect(RedisPauseListener.pause(in: message("a\n5", kind: "subscribe")) == nil)
  }
}
