import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet
@testable import ImgCachePipeline
@testable import ImgCacheRedis

/// A table's rows in a job's shards (docs/fleet.md, Keys): each URL's digest, caption and saved
/// columns kept beside it, handed to the worker, kept by `job retry`; a `rows` field that does
/// not fit its URLs buries the shard rather than leave a digest unchecked.
@Suite("A job's shards keep their table rows")
struct JobRowsTests {
  let stores = RemoteStores(redis: 1)
  let sha = ExpectedDigest(.sha256, hex: String(repeating: "ab", count: 32))
  let md5 = ExpectedDigest(.md5, hex: String(repeating: "0f", count: 16))

  func queue(_ name: String) throws -> JobQueue {
    try JobQueue(name: name, queue: "redis://127.0.0.1:\(stores.redis[0].port)", remote: [])
  }

  func take(_ jobs: JobQueue) throws -> JobQueue.Shard? {
    guard
      case .shard(let shard) = try jobs.take(
        consumer: "w", lease: .seconds(30), maxDeliveries: 3, block: .milliseconds(10)
      ).taken
    else { return nil }
    return shard
  }

  @Test(
    "rows go to their worker beside their URLs; a shard of plain URLs has none; retry keeps them")
  func rowsTravel() throws {
    let jobs = try queue("rows1")
    let first = RowNotes(
      digest: sha, caption: "a cat,\nsecond line", saved: [.integer(1), .object(["fooBar": .null])])
    let third = RowNotes(digest: md5)
    let rows = [
      ListedURL("https://a/1", notes: first), ListedURL("https://a/2"),
      ListedURL("https://a/3", notes: third), ListedURL("https://a/4"),
    ]
    _ = try jobs.submit(rows: rows, shardSize: 2, options: JobOptions(), replace: false)
    let shard = try #require(try take(jobs))
    #expect(shard.notes == [first, nil])
    #expect(shard.items == [.row("https://a/1", first), .url("https://a/2")])
    let second = try #require(try take(jobs))
    #expect(second.notes == [third, nil])
    var counts = ShardCounts()
    (counts.urls, counts.failed) = (2, ["network": 1])
    let manifest =
      #"{"url":"https://a/1","status":"error","error":{"kind":"network"}}"# + "\n"
      + #"{"url":"https://a/2","status":"downloaded"}"# + "\n"
    #expect(try jobs.finish(shard, manifest: manifest, counts: counts))
    #expect(try jobs.retry(classes: ["network"], dead: false).urls == 1)
    let retried = try #require(try take(jobs))
    #expect(retried.retry && retried.urls == ["https://a/1"] && retried.notes == [first])
    let plain = try queue("rows2")
    _ = try plain.submit(urls: ["https://a/5"], shardSize: 2, options: JobOptions(), replace: false)
    #expect(try #require(try take(plain)).notes == nil)
    let fields = stores.redisCLI(0, ["XRANGE", plain.stream, "-", "+"])
    #expect(!fields.contains("rows"), "a shard of plain URLs has no rows field: \(fields)")
  }

  @Test("rows that do not fit their URLs bury the shard at once")
  func malformedRows() throws {
    let jobs = try queue("rows3")
    _ = try jobs.submit(urls: ["https://a/1"], shardSize: 1, options: JobOptions(), replace: false)
    for rows in ["{}\n{}", #"{"sha256":"AB"}"#, "not json"] {
      _ = stores.redisCLI(
        0, ["XADD", jobs.stream, "*", "shard", "9", "urls", "https://a/9", "rows", rows])
    }
    #expect(try #require(try take(jobs)).urls == ["https://a/1"])
    // A take that meets a malformed entry buries it and hands out nothing.
    for _ in 0..<3 { #expect(try take(jobs) == nil) }
    #expect(try jobs.status(lease: .seconds(30)).dead == 3)
  }

  @Test("a row's line reads back as written; hostile lines are refused")
  func lines() {
    for notes in [
      RowNotes(digest: sha), RowNotes(digest: md5, caption: "x"),
      RowNotes(saved: [.string("é"), .array([.bool(true)])]),
    ] {
      #expect(ShardRows.notes(ShardRows.line(notes)[...], count: 1) == [notes])
    }
    #expect(ShardRows.notes("{}", count: 1) == [nil])
    let hex = String(repeating: "a", count: 64)
    for hostile in [
      #"{"sha256":"\#(hex.uppercased())"}"#, #"{"sha256":"\#(hex.dropLast())"}"#,
      #"{"sha256":"\#(hex)","md5":"\#(hex.prefix(32))"}"#, #"{"md5":"\#(hex)"}"#, "[1]", "",
      #"{"saved":{"a":1}}"#,
    ] {
      #expect(ShardRows.notes(hostile[...], count: 1) == nil, "\(hostile)")
    }
  }
}
