import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheRemote
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

  @Test("two machines asking for one host get starts one interval apart, in turn")
  func reservations() throws {
    let (a, b) = (try fleet(), try fleet())
    let interval: Int64 = 200_000_000  // 5/s
    // Each start, on this process's clock: when it was asked, plus the wait it was given.
    var starts = [Int64]()
    for machine in [a, b, a, b, a, b] {
      let asked = Int64(DispatchTime.now().uptimeNanoseconds)
      guard case .start(let wait) = try #require(machine.reserve("one.example", interval: interval))
      else {
        Issue.record("not a start")
        return
      }
      starts.append(asked + wait)
    }
    // One interval apart, within what a round trip may take.
    for (later, earlier) in zip(starts.dropFirst(), starts) {
      #expect(abs(later - earlier - interval) < 30_000_000, "\(later - earlier) ns apart")
    }
    #expect(try #require(a.reserve("other.example", interval: interval)) == .start(in: 0))
    #expect(try #require(a.reserve("one.example", interval: nil)) == .start(in: 0), "no rate")
  }

  @Test("a pause one machine hears holds for the other, and is never shortened")
  func pauses() throws {
    let (a, b) = (try fleet(), try fleet())
    a.pause("slow.example", for: 2_000_000_000)
    b.pause("slow.example", for: 500_000_000)
    guard case .paused(let left) = try #require(b.reserve("slow.example", interval: nil)) else {
      Issue.record("not paused")
      return
    }
    #expect(left > 1_500_000_000 && left <= 2_000_000_000)
    guard case .paused = try #require(a.reserve("slow.example", interval: 1_000_000)) else {
      Issue.record("a start reserved while the host is paused")
      return
    }
    #expect(try #require(b.reserve("fast.example", interval: nil)) == .start(in: 0))
  }

  @Test("a key's lock: one machine holds it, the other finds it busy until it is let go")
  func keyLocks() throws {
    let url = "redis://127.0.0.1:\(stores.redis[0].port)"
    let (a, b) = (
      try RedisKeyLocks(queue: url, remote: []), try RedisKeyLocks(queue: url, remote: [])
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
    #expect(fleet.reserve("a.example", interval: 1_000) == nil)
    #expect(fleet.reserve("a.example", interval: 1_000) == nil)
    fleet.pause("a.example", for: 1_000)
    #expect(fleet.failures.count == 1, "asked once, then left alone")
    #expect(fleet.failures.last?.isEmpty == false)
  }
}
