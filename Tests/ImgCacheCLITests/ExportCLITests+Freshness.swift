import Foundation
import ImgCacheTestSupport
import Testing

/// `imgcache export` under `freshness = http`: what the origin says not to store.
extension ExportCLITests {
  @Test("a body the origin says not to store is exported all the same; tmp/ is left empty")
  func noStore() throws {
    let env = CLIEnvironment()
    let name = "nostore-\(UUID().uuidString.prefix(8)).png"
    try Data(Fixtures.bytes("base.png")).write(
      to: URL(fileURLWithPath: servers.root + "/" + name))
    let url = servers.nginx("fresh/nostore/\(name)")
    let table = env.root.path + "/nostore.csv"
    // Twice: both rows take their bytes from the one response.
    try "url,caption\n\(url),one\n\(url),two\n".write(
      toFile: table, atomically: true, encoding: .utf8)
    let out = env.root.path + "/shards"
    let run = env.run([
      "export", "--freshness", "http", "-i", table, "--caption-col", "caption", "-o", out,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("exported 2 of 2 samples in 1 shards"), "\(run.stderr)")
    #expect(env.run(["query", url]).status == 1, "not cached")
    let left = (try? FileManager.default.contentsOfDirectory(atPath: env.cacheDirectory + "/tmp"))
    #expect(left?.isEmpty ?? true, "\(left ?? [])")
    let checked = check(out)
    #expect(checked.status == 0 && checked.stdout == "1 shards 2 samples\n", "\(checked.stderr)")
  }
}
