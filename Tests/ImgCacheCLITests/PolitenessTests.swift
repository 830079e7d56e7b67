import Foundation
import ImgCacheTestSupport
import Testing

/// Politeness against a real origin on 127.0.0.1 (docs/design.md, Politeness): `Retry-After` in
/// both forms, a wait past `retry_after_max`, and a host's pause holding back its other URLs.
/// Waits are checked from below only (the origin's own clock): a slow machine never fails them.
@Suite("imgcache is polite: Retry-After, host pauses, rate_limited")
struct PolitenessTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// A `/throttle` URL: its first `times` requests answer `status` with `Retry-After: ra`.
  func throttled(_ id: String, ra: String? = nil, times: Int = 1, status: Int = 429) -> String {
    let after = ra.map {
      "&ra=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
    return servers.fault("/throttle?id=\(id)&times=\(times)&status=\(status)" + (after ?? ""))
  }

  /// When the origin heard each request of `id`, in seconds of its clock.
  func heard(_ id: String) -> [Double] {
    let text = run("/usr/bin/curl", ["-s", servers.fault("/_throttled?id=\(id)")]).stdout
    return (try? JSONDecoder().decode([Double].self, from: Data(text.utf8))) ?? []
  }

  @Test("a 429 with Retry-After: 2 (or an HTTP date) is asked again after 2 s, not after 1 s")
  func retryAfterHonoured() {
    for (form, ra, least) in [("delta", "2", 1.95), ("date", "date+3", 1.95)] {
      let id = "ra-\(form)-\(UUID().uuidString.prefix(8))"
      let fetch = env.run(["fetch", throttled(id, ra: ra)])
      #expect(fetch.status == 0, "\(form): \(fetch.stderr)")
      let times = heard(id)
      #expect(times.count == 2, "\(form): \(times)")
      if times.count == 2 { #expect(times[1] - times[0] >= least, "\(form): \(times)") }
    }
  }

  @Test("a 503 without Retry-After pauses its host by the backoff; its next URL waits too")
  func hostPauses() {
    let first = "pause-a-\(UUID().uuidString.prefix(8))"
    let second = "pause-b-\(UUID().uuidString.prefix(8))"
    // One transfer at a time: the slot is free as soon as the 503 came, but the host's next
    // URL starts only after the pause (before, it started at once).
    let list = [throttled(first, status: 503), throttled(second, times: 0)].joined(separator: "\n")
    let run = env.run(
      ["prefetch", "-q", "-j", "1", "-i", "-"], environment: ["IMGCACHE_RETRY_DELAY": "2s"],
      input: list + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    let (a, b) = (heard(first), heard(second))
    #expect(a.count == 2 && b.count == 1, "\(a) \(b)")
    if let a0 = a.first, let b0 = b.first, a.count == 2 {
      #expect(a[1] - a0 >= 1.95, "\(a)")
      #expect(b0 - a0 >= 1.95, "\(a) \(b)")
    }
  }

  @Test("a host's pause holds for every process of the cache: another sends it nothing meanwhile")
  func pauseAcrossProcesses() throws {
    let paused = "shared-a-\(UUID().uuidString.prefix(8))"
    let first = try env.start(["fetch", throttled(paused, ra: "3")])
    // Once the origin has said Retry-After: 3 to the first process…
    for _ in 0..<200 where heard(paused).isEmpty { usleep(50_000) }
    usleep(200_000)
    // …four more processes ask it for other URLs, at once.
    let others = (0..<4).map { "shared-b\($0)-\(UUID().uuidString.prefix(8))" }
    let runs = try others.map { try env.start(["fetch", throttled($0, times: 0)]) }
    for process in runs + [first] { process.waitUntilExit() }
    #expect(runs.allSatisfy { $0.terminationStatus == 0 } && first.terminationStatus == 0)
    guard let start = heard(paused).first else {
      Issue.record("the origin never heard \(paused)")
      return
    }
    for id in others {
      let times = heard(id)
      #expect(times.count == 1 && times[0] - start >= 2.9, "\(id): \(times) vs \(start)")
    }
  }

  @Test("a paused host's queued URLs never hold the others back (a prefetch's window, -j 1)")
  func noHeadOfLineBlocking() {
    let port = servers.faultPort
    let tag = UUID().uuidString.prefix(8)
    // Two names for the fault server: a.test, whose first URL answers 503 (an 8 s pause, the
    // backoff), and b.test, which answers at once. At -j 1 the prefetch's window is 4: before,
    // a.test's next URLs filled it and b.test waited for the pause.
    func url(_ host: String, _ id: String, status: Int = 200, times: Int = 0) -> String {
      "http://\(host):\(port)/throttle?id=\(id)&times=\(times)&status=\(status)"
    }
    let a = (0..<6).map { "hol-a\($0)-\(tag)" }
    let b = (0..<8).map { "hol-b\($0)-\(tag)" }
    let list =
      [url("a.test", a[0], status: 503, times: 1)] + a.dropFirst().map { url("a.test", $0) }
      + b.map { url("b.test", $0) }
    let run = env.run(
      [
        "prefetch", "-q", "-j", "1", "-i", "-", "--resolve", "a.test:\(port):127.0.0.1",
        "--resolve", "b.test:\(port):127.0.0.1",
      ], environment: ["IMGCACHE_RETRY_DELAY": "8s"], input: list.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    guard let paused = heard(a[0]).first else {
      Issue.record("a.test was never asked")
      return
    }
    for id in b {
      let times = heard(id)
      #expect(times.count == 1 && times[0] - paused < 6, "\(id): \(times) vs \(paused)")
    }
    for id in a.dropFirst() {
      let times = heard(id)
      #expect(times.count == 1 && times[0] - paused >= 7.9, "\(id): \(times) vs \(paused)")
    }
  }

  @Test("a list sorted by host: a paused host's thousands of URLs never hold the next host back")
  func sortedListParks() {
    let port = servers.faultPort
    let tag = UUID().uuidString.prefix(8)
    // a.test pauses 8 s at its first URL, and has 4,200 more: past the window (64) and the 4,096
    // transfers the transport may hold back. Before, they filled both and b.test waited.
    let first = "sorted-a-\(tag)"
    let b = (0..<4).map { "sorted-b\($0)-\(tag)" }
    var list = ["http://a.test:\(port)/throttle?id=\(first)&times=1&status=503"]
    list += (0..<4_200).map { "http://a.test:\(port)/image/base.png?sorted=\(tag)&n=\($0)" }
    list += b.map { "http://b.test:\(port)/throttle?id=\($0)&times=0" }
    let run = env.run(
      [
        "prefetch", "-q", "-j", "16", "-i", "-", "--resolve", "a.test:\(port):127.0.0.1",
        "--resolve", "b.test:\(port):127.0.0.1",
      ], environment: ["IMGCACHE_RETRY_DELAY": "8s"], input: list.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    guard let paused = heard(first).first else {
      Issue.record("a.test was never asked")
      return
    }
    for id in b {
      let times = heard(id)
      #expect(times.count == 1 && times[0] - paused < 6, "\(id): \(times) vs \(paused)")
    }
  }

  @Test("a rate shared by two processes makes one wait its turn, never fail, whatever the cap")
  func sharedRateWaits() throws {
    // retry_after_max = 0: any pause is refused, but a rate's turn is no pause. One start
    // every 2 s, checked as at least 1 s between arrivals: a process slowed by a loaded
    // machine between its turn and its request (CI runs two test processes on two cores)
    // shifts an arrival by a fraction of a second, not the turn.
    let ids = (0..<2).map { "rate-\($0)-\(UUID().uuidString.prefix(8))" }
    let variables = ["IMGCACHE_RETRY_AFTER_MAX": "0s", "IMGCACHE_RATE_PER_HOST": "0.5/s"]
    let runs = try ids.map {
      try env.start(["fetch", throttled($0, times: 0)], environment: variables)
    }
    for process in runs { process.waitUntilExit() }
    #expect(runs.map(\.terminationStatus) == [0, 0])
    let times = ids.compactMap { heard($0).first }.sorted()
    #expect(times.count == 2 && times[1] - times[0] >= 1.0, "\(times)")
  }

  @Test(
    "a Retry-After past retry_after_max fails the URL as rate_limited at once, for every process")
  func pastTheCap() {
    let id = "cap-\(UUID().uuidString.prefix(8))"
    let url = throttled(id, ra: "3600")
    let limited = env.run(
      ["fetch", "--json", url], environment: ["IMGCACHE_RETRY_AFTER_MAX": "5s"])
    #expect(limited.status == 8, "\(limited.stderr)")
    #expect(limited.stdout.contains("\"rate_limited\""), "\(limited.stdout)")
    #expect(limited.stderr.contains("Retry-After"), "\(limited.stderr)")
    #expect(heard(id).count == 1)
    // Every process of the cache keeps the refusal: a second run asks nothing, and fails as
    // rate_limited again — not as "failed recently" (no failed-URL record, exit 11).
    let refused = env.run(["fetch", url])
    #expect(refused.status == 8 && refused.stderr.contains("Retry-After"), "\(refused.stderr)")
    #expect(heard(id).count == 1)
    // Another cache knows nothing of it: it asks, and the origin now serves the image.
    let elsewhere = TemporaryDirectory()
    let again = env.run(["fetch", url], environment: ["IMGCACHE_DIR": elsewhere.url.path])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(heard(id).count == 2)
  }
}

/// `--resolve HOST:PORT:ADDRESS` (curl's): names pinned to 127.0.0.1, hundreds of them.
@Suite("imgcache --resolve pins names, as curl does")
struct ResolveTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("a prefetch over 200 host names pinned to 127.0.0.1 stores every URL")
  func manyNames() {
    let port = servers.httpPort
    let names = (0..<200).map { "img\($0).imgcache.test" }
    let pins = names.flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] }
    let list = names.enumerated().map { "http://\($1):\(port)/base.png?n=\($0)" }
    let run = env.run(
      ["prefetch", "-q", "-j", "32", "-i", "-"] + pins, input: list.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    let listed = env.run(["list", "--json"]).stdout
    #expect(names.allSatisfy { listed.contains("\"http://\($0):\(port)/base.png") })
  }

  @Test("a port written with a leading zero is the same port, as libcurl reads it")
  func leadingZeroPort() {
    let port = servers.httpPort
    let run = env.run([
      "fetch", "--resolve", "zero.imgcache.test:\(port):127.0.0.1",
      "http://zero.imgcache.test:0\(port)/base.png?zero",
    ])
    #expect(run.status == 0, "\(run.stderr)")
  }

  @Test(
    "a malformed --resolve is a usage error naming it",
    arguments: [
      "img.test:80", "img.test::127.0.0.1", "img.test:0:127.0.0.1", "img.test:70000:127.0.0.1",
      ":80:127.0.0.1", "img.test:80:", "img.test:80:127.0.0.1\nX: y", "img test:80:127.0.0.1",
      "img.test:80:host.example",
    ])
  func malformed(entry: String) {
    let run = env.run(["fetch", "--resolve", entry, "http://img.test/a.png"])
    #expect(run.status == 2, "\(entry): \(run.stderr)")
    #expect(run.stderr.contains("--resolve") && run.stderr.split(separator: "\n").count == 1)
  }
}
