import Foundation
import ImgCacheTestSupport
import Testing

/// Politeness that ends and fits: a host that only throttles, the open-files limit.
extension PolitenessTests {
  @Test(
    "a host that only throttles, without Retry-After, ends the list at once past throttle_limit")
  func throttlesEnd() {
    let ids = (0..<10).map { "dead-\($0)-\(UUID().uuidString.prefix(8))" }
    let list = ids.map { throttled($0, times: 1_000) }.joined(separator: "\n")
    // -q: errors only, and the failures are errors.
    let run = env.run(
      ["prefetch", "-q", "-j", "1", "-i", "-"],
      environment: ["IMGCACHE_RETRY_DELAY": "100ms", "IMGCACHE_THROTTLE_LIMIT": "3"],
      input: list + "\n")
    #expect(run.status == 8, "\(run.stderr)")
    #expect(run.stderr.contains("throttled 4 times in a row"), "\(run.stderr)")
    #expect(run.stderr.contains("127.0.0.1"), "the host is named: \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count >= 10, "every failure shown: \(run.stderr)")
    // Three pauses (the first URL's three attempts), the fourth throttle abandons the host:
    // each URL's retries would have sent 30.
    let requests = ids.map { heard($0).count }.reduce(0, +)
    #expect(requests <= 5, "\(requests) requests")
  }

  @Test("-j past the open-files limit is lowered to fit, said once, and every URL is stored")
  func jobsFitOpenFiles() {
    let urls = servers.distinctImages(300).map { servers.fault($0) }
    let command = "ulimit -n 256 && exec \"$0\" \"$@\""
    let run = ImgCacheTestSupport.run(
      "/bin/sh", ["-c", command, imgcacheBinary, "prefetch", "-j", "5000", "-i", "-"],
      environment: env.environment, input: urls.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.stderr.suffix(600))")
    #expect(run.stderr.contains("-j 5000 lowered to 64"), "\(run.stderr.suffix(600))")
    #expect(run.stderr.components(separatedBy: "lowered").count == 2, "said once")
    #expect(run.stderr.contains("300 downloaded"), "\(run.stderr.suffix(600))")
  }
}
