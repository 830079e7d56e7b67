import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheRemote

/// Where `export -o URL` sends shards (``ShardStore``): what one upload may send.
@Suite("A shard store: a file over S3's single PUT is refused before anything is sent")
struct ShardStoreTests {
  /// Keys for a bucket no server holds (port 9: nothing listens there).
  let environment = ["AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"]
  let bucket = "s3://bucket/shards|endpoint=http://127.0.0.1:9|region=us-east-1"

  @Test("S3 takes at most 5 GiB a PUT; a WebDAV folder has no limit of its own")
  func limits() throws {
    let s3 = try ShardStore(bucket, environment: environment)
    #expect(s3.largestUpload == 5 << 30)
    let dav = try ShardStore("http://127.0.0.1:9/shards/", environment: [:])
    #expect(dav.largestUpload == nil)
  }

  @Test("a file over the limit is refused by size, naming it, without a request")
  func overTheLimit() throws {
    let directory = TemporaryDirectory()
    let small = try directory.write("00000.jsonl", Array(repeating: 0x61, count: 10))
    let large = try directory.write("00000.tar", Array(repeating: 0x61, count: 11))
    let store = try ShardStore(bucket, environment: environment, largestUpload: 10)
    try store.checkSize(of: small, as: "00000.jsonl")
    let refused = #expect(throws: CacheError.self) {
      try store.checkSize(of: large, as: "00000.tar")
    }
    #expect(refused?.kind == .tooLarge)
    #expect(refused?.message.contains("00000.tar is 11 bytes") == true)
    #expect(refused?.message.contains("--shard-size") == true)
    // Refused before the request: nothing listens on port 9, which would be a network error.
    let upload = #expect(throws: CacheError.self) { try store.upload(large, as: "00000.tar") }
    #expect(upload?.kind == .tooLarge)
    // Under the limit, the same upload is tried, and meets no server.
    let tried = try ShardStore(bucket, environment: environment, largestUpload: 100)
    let sent = #expect(throws: CacheError.self) { try tried.upload(large, as: "00000.tar") }
    #expect(sent?.kind != .tooLarge)
  }
}
