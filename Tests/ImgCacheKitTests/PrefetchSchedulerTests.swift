import Foundation
import Testing

@testable import ImgCachePipeline

/// The prefetch loop's scheduler as a value: the time is passed in, nothing sleeps.
@Suite("The prefetch scheduler: window, admission in input order, store batches")
struct PrefetchSchedulerTests {
  let start = ContinuousClock.now

  func fetches(_ count: Int) -> [Fetch] {
    (0..<count).map { Fetch("https://img.example/\($0).png", options: FetchOptions()) }
  }

  @Test("admits in input order up to four fetches a transfer slot, then nothing until room is made")
  func window() {
    var scheduler = PrefetchScheduler(transfers: 2, now: start)
    var open = fetches(20)[...]
    let first = scheduler.admit(&open)
    #expect(first.map(\.given) == fetches(8).map(\.given))
    #expect(open.count == 12)
    for (ticket, fetch) in first.enumerated() { scheduler.transfers[UInt64(ticket)] = fetch }
    #expect(scheduler.room == 0 && scheduler.admit(&open).isEmpty && open.count == 12)
    scheduler.transfers[0] = nil
    scheduler.ended("https://img.example/0.png")
    #expect(scheduler.admit(&open).map(\.given) == ["https://img.example/8.png"])
  }

  @Test("checked bodies wait for a batch, the delay, or the input's end; one store at a time")
  func storeBatches() {
    var scheduler = PrefetchScheduler(
      transfers: 1, now: start, storeBatch: 3, storeDelay: .milliseconds(20))
    scheduler.transfers[9] = fetches(1)[0]
    scheduler.await(store: fetches(2), now: start)
    #expect(!scheduler.storeIsDue(now: start + .milliseconds(19), inputEnded: false))
    #expect(scheduler.storeIsDue(now: start + .milliseconds(20), inputEnded: false))
    #expect(scheduler.storeIsDue(now: start, inputEnded: true))
    #expect(scheduler.storeDeadline == start + .milliseconds(20))
    // Bodies that come later do not move the first one's deadline.
    scheduler.await(store: fetches(1), now: start + .milliseconds(15))
    #expect(scheduler.storeIsDue(now: start, inputEnded: false))
    #expect(scheduler.takeStore()?.count == 3)
    #expect(scheduler.storeDeadline == nil && scheduler.isBusy)
    scheduler.await(store: fetches(2), now: start + .milliseconds(30))
    #expect(scheduler.takeStore() == nil)
    scheduler.storeEnded()
    #expect(scheduler.storeDeadline == start + .milliseconds(50))
    #expect(scheduler.takeStore()?.count == 2)
  }

  @Test("while a store runs, bodies past a batch count against the window")
  func pileUpCounts() {
    var scheduler = PrefetchScheduler(transfers: 1, now: start, storeBatch: 2)
    scheduler.await(store: fetches(2), now: start)
    _ = scheduler.takeStore()
    #expect(scheduler.room == 2)
    scheduler.await(store: fetches(3), now: start)
    #expect(scheduler.room == 1)
    scheduler.storeEnded()
    #expect(scheduler.room == 4 && scheduler.hasWork && !scheduler.isBusy)
  }
}

/// The prefetch loop's inbox, woken with nothing in it (the transport holds more back).
@Suite("Finished downloads: an empty wake-up is never lost", .timeLimit(.minutes(1)))
struct InboxWakeTests {
  @Test("a wake-up that comes before the wait ends the next wait at once")
  func earlyNudge() async {
    let inbox = FinishedDownloads()
    inbox.receive([])
    let arrivals = await inbox.take()
    #expect(arrivals.isEmpty)
    // Taken once: the next wait waits (for its deadline here).
    let later = await inbox.take(before: .now + .milliseconds(20))
    #expect(later.isEmpty)
  }
}

/// Fetches parked per host: a host with a window's worth started never fills the window again.
@Suite("The prefetch scheduler parks a host's fetches past its share of the window")
struct PrefetchParkingTests {
  let start = ContinuousClock.now

  func fetches(_ host: String, _ count: Int) -> [Fetch] {
    (0..<count).map { Fetch("https://\(host)/\($0).png", options: FetchOptions()) }
  }

  @Test(
    "a list sorted by host: the first host's fetches past the window wait, the next host's start")
  func sortedList() {
    var scheduler = PrefetchScheduler(transfers: 1, now: start, storeBatch: 0)
    var open = (fetches("a.example", 10) + fetches("b.example", 3))[...]
    let first = scheduler.admit(&open)
    #expect(first.map(\.given) == fetches("a.example", 4).map(\.given))
    for (ticket, fetch) in first.enumerated() { scheduler.transfers[UInt64(ticket)] = fetch }
    // a.example is paused: the transport holds its four back, so the window has room again.
    scheduler.heldBack = 4
    let second = scheduler.admit(&open)
    #expect(second.map(\.given) == fetches("b.example", 3).map(\.given), "\(second.map(\.given))")
    #expect(open.isEmpty && scheduler.parkedCount == 6)
    // One of a.example's ends: its next parked fetch comes first, in input order.
    scheduler.transfers[0] = nil
    scheduler.ended("https://a.example/0.png")
    scheduler.heldBack = 3
    var none = [Fetch]()[...]
    #expect(scheduler.admit(&none).map(\.given) == ["https://a.example/4.png"])
  }

  @Test("parked fetches are bounded; a cancelled run takes them back")
  func bounds() {
    var scheduler = PrefetchScheduler(transfers: 1, now: start, storeBatch: 0)
    var open = fetches("a.example", 4 + PrefetchScheduler.maxParked + 5)[...]
    let first = scheduler.admit(&open)
    for (ticket, fetch) in first.enumerated() { scheduler.transfers[UInt64(ticket)] = fetch }
    scheduler.heldBack = 4
    #expect(scheduler.admit(&open).isEmpty)
    #expect(scheduler.parkedCount == PrefetchScheduler.maxParked && open.count == 5)
    #expect(scheduler.takeParked().count == PrefetchScheduler.maxParked && !scheduler.hasParked)
    for (ticket, fetch) in first.enumerated() {
      scheduler.transfers[UInt64(ticket)] = nil
      scheduler.ended(fetch.given)
    }
    #expect(scheduler.admit(&open).count == 4, "the host's fetches ended: its next start")
  }

  @Test("one host's bodies waiting for the store do not park its next fetches while there is room")
  func waitingBodies() {
    var scheduler = PrefetchScheduler(transfers: 1, now: start, storeBatch: 32)
    var open = fetches("a.example", 40)[...]
    let first = scheduler.admit(&open)
    #expect(first.count == 4)
    // Their bodies came and wait for the next store: the window has room again.
    scheduler.await(store: first, now: start)
    #expect(scheduler.admit(&open).count == 4 && !scheduler.hasParked)
  }

  @Test("a queue that never drains lets go of the fetches taken from it")
  func queueCompacts() {
    var queue = PrefetchScheduler.Queue()
    let fetch = Fetch("https://a.example/x.png", options: FetchOptions())
    for round in 0..<10 {
      for _ in 0..<1_000 { queue.append(fetch) }
      for _ in 0..<(round == 9 ? 0 : 900) { _ = queue.popFirst() }
    }
    #expect(
      queue.fetches.count - queue.head == 1_900 && queue.fetches.count < 4_000,
      "\(queue.fetches.count)")
  }
}

/// `--shard K/N`: the key's MD5 decides, so every machine's part is disjoint and all cover.
@Suite("Static shards: K of N by the key's MD5")
struct ShardTests {
  @Test("parsing: K/N with 0 ≤ K < N ≤ 1,000,000; anything else names --shard")
  func parsing() throws {
    let shard = try Shard(parsing: "2/5")
    #expect(shard.index == 2 && shard.count == 5 && shard.description == "2/5")
    for bad in ["5/5", "-1/4", "1", "1/0", "a/b", "1/2/3", "/4", "0/", "0/1000001", "٣/4", " 1/4"] {
      #expect(throws: CacheError.self, "\(bad)") { try Shard(parsing: bad) }
    }
    let error = try #require(throws: CacheError.self) { try Shard(parsing: "9/3") }
    #expect(error.kind == .invalidInput && error.message.contains("--shard"))
  }

  @Test("the shards of a list are disjoint, cover it, and are about even")
  func cover() throws {
    let shards = try (0..<4).map { try Shard(parsing: "\($0)/4") }
    var sizes = [0, 0, 0, 0]
    for n in 0..<4_000 {
      let key = "https://img.example/\(n).png"
      let owners = shards.filter { $0.contains(key: key) }
      #expect(owners.count == 1)
      if let owner = owners.first { sizes[owner.index] += 1 }
    }
    #expect(sizes.allSatisfy { $0 > 850 && $0 < 1_150 }, "\(sizes)")
    #expect(try Shard(parsing: "0/1").contains(key: "anything"))
  }
}
