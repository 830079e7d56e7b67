import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet
@testable import ImgCacheRedis

/// A job's queue on a real redis-server (docs/fleet.md): shards submitted in one pass, taken
/// once each, a lapsed lease taken over, a shard delivered too often buried, a shard given
/// back, finished once, counted by `status`.
@Suite("Job queue on Redis Streams: submit, take, lease, take over, bury, finish")
struct JobQueueTests {
  let stores = RemoteStores(redis: 1)

  func queue(_ name: String) throws -> JobQueue {
    try JobQueue(name: name, queue: "redis://127.0.0.1:\(stores.redis[0].port)", remote: [])
  }

  func take(
    _ jobs: JobQueue, _ worker: String, lease: Duration = .seconds(30), max: Int = 3
  ) throws -> JobQueue.Shard? {
    guard
      case .shard(let shard) = try jobs.take(
        consumer: worker, lease: lease, maxDeliveries: max, block: .milliseconds(10)
      ).taken
    else { return nil }
    return shard
  }

  /// Makes `shard`'s lease look lapsed, as a worker that died a minute ago leaves it: Redis is
  /// told its entry has been idle that long (no wait on Redis's clock).
  func lapse(_ jobs: JobQueue, _ shard: JobQueue.Shard, of consumer: String) {
    _ = stores.redisCLI(
      0,
      [
        "XCLAIM", jobs.stream, JobQueue.group, consumer, "0", shard.id.description, "IDLE",
        "60000", "JUSTID",
      ])
  }

  @Test("25 URLs in shards of 10: three shards, each taken once, in order, then none")
  func submitAndTake() throws {
    let jobs = try queue("q1")
    let urls = (0..<25).map { "https://img.example/\($0).png" }
    let options = JobOptions(policy: ["rate_per_host": "2/s"], variant: "64x64 webp")
    let added = try jobs.submit(urls: urls, shardSize: 10, options: options, replace: false)
    #expect(added.urls == 25 && added.shards == 3)
    #expect(try jobs.options() == options)
    var taken = [JobQueue.Shard]()
    for worker in ["w1", "w2", "w1"] { taken.append(try #require(try take(jobs, worker))) }
    #expect(taken.map(\.index) == [0, 1, 2] && taken.flatMap(\.urls) == urls)
    #expect(taken.allSatisfy { $0.deliveries == 1 })
    #expect(try take(jobs, "w3") == nil)
    #expect(try jobs.pending() == PendingSummary(count: 3, consumers: ["w1": 2, "w2": 1]))
    var status = try jobs.status(lease: .seconds(30))
    #expect(status.inProgress == ["w1": 2, "w2": 1] && status.pending == 0 && status.done == 0)
    #expect(try !jobs.isComplete())
    var counts = ShardCounts()
    (counts.urls, counts.stored, counts.failed) = (10, 9, ["network": 1])
    for shard in taken { #expect(try jobs.finish(shard, manifest: "{}\n", counts: counts)) }
    #expect(try !jobs.finish(taken[0], manifest: "x", counts: counts), "finished once only")
    #expect(try jobs.manifest(shard: 0) == Data("{}\n".utf8))
    status = try jobs.status(lease: .seconds(30))
    #expect(status.done == 3 && status.inProgress.isEmpty && status.pending == 0)
    #expect(status.counts.urls == 30 && status.counts.failed == ["network": 3])
    #expect(try jobs.isComplete())
    #expect(throws: CacheError.self) {
      try jobs.submit(urls: urls, shardSize: 10, options: options, replace: false)
    }
    #expect(try jobs.submit(urls: urls, shardSize: 25, options: options, replace: true).shards == 1)
    #expect(try jobs.status(lease: .seconds(30)).done == 0, "--replace starts afresh")
  }

  @Test("a lapsed lease is taken over by another worker; a renewed one is not")
  func takeOver() throws {
    let jobs = try queue("q2")
    _ = try jobs.submit(
      urls: ["https://a/1", "https://a/2"], shardSize: 1, options: JobOptions(), replace: false)
    // Taken under a long lease: the takers' own threshold cannot see the other lapse.
    let dead = try #require(try take(jobs, "dead"))
    let alive = try #require(try take(jobs, "alive"))
    lapse(jobs, dead, of: "dead")
    #expect(try jobs.renew(alive, consumer: "alive") == (true, "open"))
    // The heir's threshold: three leases of 200 ms; the dead one has been idle for a minute,
    // the live one for less than its renewal's round trip.
    let taken = try #require(try take(jobs, "heir", lease: .milliseconds(200)))
    #expect(taken.id == dead.id && taken.urls == dead.urls, "the dead worker's, not the live one's")
    #expect(taken.deliveries == 2)
    #expect(try jobs.pending().consumers == ["heir": 1, "alive": 1])
    #expect(try jobs.renew(dead, consumer: "dead").held == false, "its lease is gone")
    #expect(try jobs.pending().consumers == ["heir": 1, "alive": 1], "and not taken back")
  }

  @Test("a shard delivered max_deliveries times goes to the dead list, taken by no one")
  func poison() throws {
    let jobs = try queue("q3")
    _ = try jobs.submit(
      urls: ["https://a/poison"], shardSize: 1, options: JobOptions(), replace: false)
    let lease = Duration.milliseconds(20)
    for attempt in 1...2 {
      let shard = try #require(try take(jobs, "w\(attempt)", lease: lease, max: 2))
      #expect(shard.deliveries == attempt)
      lapse(jobs, shard, of: "w\(attempt)")  // the worker "crashes": its lease lapses
    }
    let last = try jobs.take(
      consumer: "w3", lease: lease, maxDeliveries: 2, block: .milliseconds(10))
    #expect(last.taken == .none && last.buried == 1)
    let status = try jobs.status(lease: lease)
    #expect(status.dead == 1 && status.pending == 0 && status.inProgress.isEmpty)
    #expect(try jobs.isComplete(), "done or dead: nothing left")
  }

  @Test("a shard given back is taken next, its delivery not counted")
  func giveBack() throws {
    let jobs = try queue("q4")
    _ = try jobs.submit(
      urls: ["https://a/1", "https://a/2"], shardSize: 1, options: JobOptions(), replace: false)
    let first = try #require(try take(jobs, "leaving"))
    try jobs.giveBack(first, consumer: "leaving")
    #expect(try jobs.status(lease: .seconds(30)).pending == 2)
    let again = try #require(try take(jobs, "staying"))
    #expect(again.id == first.id && again.deliveries == 1)
  }

  @Test("a worker whose lease lapsed cannot give back the shard another took over")
  func giveBackAfterTakeOver() throws {
    let jobs = try queue("q6")
    _ = try jobs.submit(urls: ["https://a/1"], shardSize: 1, options: JobOptions(), replace: false)
    let stale = try #require(try take(jobs, "stale"))
    lapse(jobs, stale, of: "stale")
    let heir = try #require(try take(jobs, "heir", lease: .milliseconds(20)))
    #expect(heir.id == stale.id && heir.deliveries == 2)
    try jobs.giveBack(stale, consumer: "stale")
    #expect(try jobs.pending().consumers == ["heir": 1], "still the heir's")
    #expect(try take(jobs, "third") == nil, "not handed out again")
    #expect(try jobs.renew(heir, consumer: "heir").held)
  }

  @Test("a cancelled job hands out nothing; delete removes every key")
  func cancelAndDelete() throws {
    let jobs = try queue("q5")
    _ = try jobs.submit(urls: ["https://a/1"], shardSize: 1, options: JobOptions(), replace: false)
    try jobs.cancel()
    #expect(
      try jobs.take(consumer: "w", lease: .seconds(1), maxDeliveries: 3, block: .milliseconds(1))
        .taken == .cancelled)
    #expect(try jobs.delete())
    #expect(stores.redisCLI(0, ["KEYS", "imgcache:job:q5*"]) == "")
    #expect(throws: CacheError.self) { try jobs.status(lease: .seconds(1)) }
    #expect(try !jobs.delete())
  }

  @Test("a job name becomes part of keys: only letters, digits, '.', '_' and '-', 1 to 64")
  func names() {
    for bad in ["", "a b", "a:b", "a*", "é", String(repeating: "a", count: 65), "a\nb"] {
      #expect(!JobQueue.isValidName(bad), "\(bad)")
    }
    #expect(JobQueue.isValidName("laion-5b_part.01"))
  }
}
