import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A host's rate and pause held across four workers (docs/fleet.md, Politeness), measured by
/// when the fault server's `/throttle` saw each request.
@Suite("fleet politeness: a host's rate and pause hold across four workers", .serialized)
struct FleetPolitenessTests {
  let servers = TestServers.shared
  let fleet = JobFleet()

  /// When the server saw the requests of `/throttle?id=…`, in order.
  func times(_ id: String) throws -> [Double] {
    let text = run("/usr/bin/curl", ["-s", servers.fault("/_throttled?id=\(id)")]).stdout
    return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Double])
      .sorted()
  }

  @Test("--rate-per-host 6/s over four workers: 24 requests take 23 intervals, not 5")
  func rate() throws {
    let id = "fleet-rate-\(UUID().uuidString.prefix(8))"
    let urls = (0..<24).map { servers.fault("/throttle?id=\(id)&times=0&n=\($0)") }
    try fleet.submit("rated", urls, ["--shard-size", "6", "--rate-per-host", "6/s", "-j", "4"])
    let workers = try (0..<4).map { _ in try fleet.worker("rated") }
    for worker in workers {
      let (status, said) = worker.finish()
      #expect(status == 0, "\(said)")
    }
    let seen = try times(id)
    try #require(seen.count == 24)
    let span = seen[23] - seen[0]
    // Four machines at 6/s each would take under a second; the fleet's 6/s takes 23/6 s.
    #expect(span >= 23.0 / 6 * 0.95, "24 requests in \(span) s")
    let gaps = zip(seen.dropFirst(), seen).map { $0 - $1 }
    #expect(gaps.filter { $0 < 0.1 }.count <= 1, "starts one interval apart: \(gaps)")
  }

  @Test("a Retry-After heard by one worker pauses the host for all four")
  func pause() throws {
    let id = "fleet-pause-\(UUID().uuidString.prefix(8))"
    // The first request of the id is answered 429 with Retry-After: 2; the rest are served.
    // Enough URLs that, unpaused, every worker would still be asking two seconds on.
    let urls = (0..<300).map { servers.fault("/throttle?id=\(id)&times=1&ra=2&n=\($0)") }
    try fleet.submit("paused", urls, ["--shard-size", "75", "-j", "2", "--retry", "3"])
    let workers = try (0..<4).map { _ in try fleet.worker("paused") }
    for worker in workers {
      let (status, said) = worker.finish()
      #expect(status == 0, "\(said)")
    }
    let seen = try times(id)
    #expect(seen.count == 301, "300 URLs and the one retried")
    // Published by the worker that heard it, the pause reaches the others' subscriptions in
    // milliseconds (a loaded machine's scheduling aside: half a second allowed here; the
    // bench measures it): then nothing until the two seconds are over.
    let first = seen[0]
    let during = seen.dropFirst().filter { $0 > first + 0.5 && $0 < first + 1.9 }
    #expect(during.isEmpty, "requests while the fleet was paused: \(during.map { $0 - first })")
  }
}
