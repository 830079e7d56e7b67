import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheRemote

/// A job's queue on a real redis-server (issue 38's groundwork): shards submitted in one pass,
/// taken once each, a lapsed lease taken over, acknowledged.
@Suite("Job queue on Redis Streams: submit, take, lease, take over, acknowledge")
struct JobQueueTests {
  let stores = RemoteStores(redis: 1)

  func queue(_ name: String) throws -> JobQueue {
    let url = "redis://127.0.0.1:\(stores.redis[0].port)"
    let spec = try #require(try RemoteSpec.parseList(url).first)
    return try JobQueue(name: name, server: try RedisServer(url: url, spec: spec))
  }

  @Test("25 URLs in shards of 10: three shards, each taken once, in order, then none")
  func submitAndTake() throws {
    let jobs = try queue("q1")
    let urls = (0..<25).map { "https://img.example/\($0).png" }
    let added = try jobs.submit(urls: urls, shardSize: 10, options: "{}", replace: false)
    #expect(added.urls == 25 && added.shards == 3)
    var taken = [JobQueue.Shard]()
    for worker in ["w1", "w2", "w1"] {
      taken.append(
        try #require(try jobs.take(consumer: worker, lease: .seconds(30), block: .milliseconds(10)))
      )
    }
    #expect(taken.map(\.index) == [0, 1, 2] && taken.flatMap(\.urls) == urls)
    #expect(try jobs.take(consumer: "w3", lease: .seconds(30), block: .milliseconds(10)) == nil)
    #expect(try jobs.pending() == PendingSummary(count: 3, consumers: ["w1": 2, "w2": 1]))
    for shard in taken { try jobs.acknowledge(shard) }
    #expect(try jobs.pending().count == 0)
    #expect(throws: CacheError.self) {
      try jobs.submit(urls: urls, shardSize: 10, options: "{}", replace: false)
    }
    #expect(try jobs.submit(urls: urls, shardSize: 25, options: "{}", replace: true).shards == 1)
  }

  @Test("a lapsed lease is taken over by another worker; a renewed one is not")
  func takeOver() throws {
    let jobs = try queue("q2")
    _ = try jobs.submit(
      urls: ["https://a/1", "https://a/2"], shardSize: 1, options: "{}", replace: false)
    let lease = Duration.milliseconds(100)
    let dead = try #require(try jobs.take(consumer: "dead", lease: lease, block: .milliseconds(10)))
    let alive = try #require(
      try jobs.take(consumer: "alive", lease: lease, block: .milliseconds(10)))
    for _ in 0..<4 {
      usleep(100_000)
      try jobs.renew(alive, consumer: "alive")
    }
    let taken = try #require(
      try jobs.take(consumer: "heir", lease: lease, block: .milliseconds(10)))
    #expect(
      taken.id == dead.id && taken.urls == dead.urls, "the dead worker's shard, not the live one's")
    #expect(try jobs.pending().consumers == ["heir": 1, "alive": 1])
  }

  @Test("a job name becomes part of keys: only letters, digits, '.', '_' and '-', 1 to 64")
  func names() {
    for bad in ["", "a b", "a:b", "a*", "é", String(repeating: "a", count: 65), "a\nb"] {
      #expect(!JobQueue.isValidName(bad), "\(bad)")
    }
    #expect(JobQueue.isValidName("laion-5b_part.01"))
  }
}
