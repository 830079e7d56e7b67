import Foundation
import ImgCacheTestSupport
import Testing

/// `prefetch --shard K/N`: N machines given one list, each its own K, fetch each URL once.
@Suite("imgcache prefetch --shard K/N")
struct ShardCLITests {
  let servers = TestServers.shared

  @Test("three shards of one list: disjoint, together the whole list, the rest counted apart")
  func threeShards() throws {
    let tag = UUID().uuidString.prefix(8)
    let urls = (0..<60).map { servers.nginx("base.png?shard=\(tag)&n=\($0)") }
    var seen = [String: Int]()
    for k in 0..<3 {
      let env = CLIEnvironment()
      let run = env.run(
        ["prefetch", "--json", "--shard", "\(k)/3", "-i", "-"],
        input: urls.joined(separator: "\n") + "\n")
      #expect(run.status == 0, "\(run.stderr)")
      let fetched = run.stdout.split(separator: "\n").compactMap { line -> String? in
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["url"] as? String
      }
      for url in fetched { seen[url, default: 0] += 1 }
      #expect(run.stderr.contains("\(60 - fetched.count) in other shards"), "\(run.stderr)")
      #expect(fetched.count > 5, "shard \(k): \(fetched.count)")
    }
    #expect(Set(seen.keys) == Set(urls) && seen.values.allSatisfy { $0 == 1 })
  }

  @Test("a bad --shard is a usage error naming it", arguments: ["3/3", "x", "1/0", "-1/2"])
  func bad(value: String) {
    let run = CLIEnvironment().run(["prefetch", "--shard", value, servers.nginx("base.png")])
    #expect(run.status == 2, "\(value): \(run.stderr)")
    #expect(run.stderr.contains("--shard") && run.stderr.split(separator: "\n").count == 1)
  }
}
