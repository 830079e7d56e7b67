import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `freshness = http`: fresh entries are used, stale ones revalidated, `no-store` not cached;
/// stale-if-error serves the stored copy when the origin is down.
@Suite("imgcache freshness and stale-if-error against nginx and a failing origin", .serialized)
struct FreshnessTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared
  let http = ["--freshness", "http"]

  init() {
    // One request per run: a 5xx is otherwise retried (twice, with backoff).
    env.environment["IMGCACHE_RETRY"] = "0"
  }

  /// The statuses nginx logged for `uri`, in order.
  private func logged(_ uri: String) -> [Int] {
    let text = (try? String(contentsOfFile: servers.freshLog, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ")
      return parts.count == 3 && parts[0] == uri ? Int(parts[1]) : nil
    }
  }

  /// A fresh copy of a fixture under `/fresh/<kind>/`, so each test has its own URI and log.
  private func fixture(_ kind: String) throws -> (url: String, uri: String) {
    let name = "fresh-\(UUID().uuidString.prefix(8)).png"
    try Data(Fixtures.bytes("base.png")).write(to: URL(fileURLWithPath: servers.root + "/" + name))
    return (servers.nginx("fresh/\(kind)/\(name)"), "/fresh/\(kind)/\(name)")
  }

  private func requests(_ path: String) -> Int { servers.stats()?.requests[path] ?? 0 }

  /// Takes the fault server's `/origin` down or up (`/_down?id=…&how=…`, `/_up?id=…`).
  private func origin(_ control: String) {
    _ = ImgCacheTestSupport.run("/usr/bin/curl", ["-sf", servers.fault(control)])
  }

  @Test("freshness never (default) uses an entry as long as it exists; http revalidates it")
  func revalidatesStale() throws {
    let (url, uri) = try fixture("zero")
    #expect(env.run(["fetch", url]).status == 0)
    #expect(env.run(["fetch", url]).status == 0)
    #expect(logged(uri) == [200], "max-age=0 ignored by default, as SDWebImage")
    let revalidated = env.run(["fetch", "--json"] + http + [url])
    #expect(revalidated.status == 0, "\(revalidated.stderr)")
    #expect(CLIEnvironment.records(revalidated).first?["status"] as? String == "not_modified")
    #expect(logged(uri) == [200, 304], "a conditional GET, answered 304")
    // The policy file says the same as the flag.
    try "freshness = http\n".write(
      toFile: env.cacheDirectory + "/imgcache.conf", atomically: true, encoding: .utf8)
    #expect(env.run(["fetch", url]).status == 0)
    #expect(logged(uri) == [200, 304, 304])
  }

  @Test("a fresh entry (expires 1h) is used without a request; query --json says until when")
  func freshIsUsed() throws {
    let (url, uri) = try fixture("hour")
    #expect(env.run(["fetch"] + http + [url]).status == 0)
    let again = env.run(["fetch"] + http + [url])
    #expect(again.status == 0)
    #expect(logged(uri) == [200])
    let query = env.run(["query", "--json", url])
    let record = try #require(CLIEnvironment.records(query).first)
    #expect(record["fresh"] as? Bool == true)
    #expect((record["cache_control"] as? String)?.contains("max-age=3600") == true)
    let until = try #require(
      (record["fresh_until"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
    #expect(abs(until.timeIntervalSinceNow - 3600) < 120, "\(until)")
  }

  @Test("no-cache always revalidates; no-store is delivered but never cached")
  func noCacheNoStore() throws {
    let (cached, cachedURI) = try fixture("nocache")
    for _ in 0..<3 { #expect(env.run(["fetch"] + http + [cached]).status == 0) }
    #expect(logged(cachedURI) == [200, 304, 304])
    let (url, uri) = try fixture("nostore")
    let plain = env.run(["fetch"] + http + [url])
    #expect(plain.status == 0)
    #expect(plain.stdout.isEmpty)
    #expect(plain.stderr.contains("no-store"), "\(plain.stderr)")
    #expect(env.run(["query", url]).status == 1, "not cached")
    let copy = env.root.path + "/kept.png"
    let saved = env.run(["fetch", "-o", copy] + http + [url])
    #expect(saved.status == 0)
    #expect(saved.stdout == copy + "\n")
    #expect(FileManager.default.contents(atPath: copy) == Data(Fixtures.bytes("base.png")))
    let prefetch = env.run(["prefetch", "--json"] + http + [url])
    #expect(CLIEnvironment.records(prefetch).first?["status"] as? String == "not_stored")
    #expect(logged(uri) == [200, 200, 200])
    #expect(env.run(["query", url]).status == 1)
    #expect(DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").isEmpty, "no body left")
    // Without freshness = http, no-store is ignored as SDWebImage ignores it.
    #expect(env.run(["fetch", url]).stdout.hasPrefix(env.cacheDirectory))
  }

  @Test("origin down: stale-if-error serves the stored copy with a warning and stale: true")
  func staleIfError() throws {
    let id = UUID().uuidString.prefix(8)
    let path = "/origin?id=\(id)&cc=max-age%3D0"
    let url = servers.fault(path)
    let first = env.run(["fetch"] + http + [url])
    #expect(first.status == 0)
    origin("/_down?id=\(id)&how=503")
    let failed = env.run(["fetch"] + http + [url])
    #expect(failed.status == 8, "a 503 without stale-if-error fails: \(failed.stderr)")
    let stale = env.run(["fetch", "--json", "--stale-if-error"] + http + [url])
    #expect(stale.status == 0, "\(stale.stderr)")
    #expect(stale.stderr.contains("stale"), "\(stale.stderr)")
    let record = try #require(CLIEnvironment.records(stale).first)
    #expect(record["stale"] as? Bool == true)
    #expect(record["status"] as? String == "stale")
    #expect(record["path"] as? String == first.stdout.trimmingCharacters(in: .newlines))
    #expect((record["revalidation_error"] as? [String: Any])?["http_status"] as? Int == 503)
    // A reset connection is a network error: also served, from the policy key.
    origin("/_down?id=\(id)&how=reset")
    let reset = env.run(
      ["fetch"] + http + [url], environment: ["IMGCACHE_STALE_IF_ERROR": "1d"])
    #expect(reset.status == 0, "\(reset.stderr)")
    #expect(reset.stdout == first.stdout)
    // --refresh with the default freshness, origin down: the same rule.
    origin("/_down?id=\(id)&how=502")
    let refreshed = env.run(["fetch", "--refresh", "--stale-if-error=1h", url])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
    #expect(env.run(["stats", "--json"]).stdout.contains("\"served_stale\":3"))
    // A 404 is an answer, not an outage: never papered over.
    origin("/_down?id=\(id)&how=404")
    #expect(env.run(["fetch", "--stale-if-error"] + http + [url]).status == 8)
    #expect(requests(path) == 6, "one request per run; none when the origin is answered")
  }

  @Test("the origin's own stale-if-error is honoured; must-revalidate forbids serving stale")
  func originDirectives() throws {
    let id = UUID().uuidString.prefix(8)
    let allowed = servers.fault("/origin?id=\(id)&cc=max-age%3D0%2C%20stale-if-error%3D3600")
    let strict = servers.fault("/origin?id=\(id)&cc=max-age%3D0%2C%20must-revalidate")
    #expect(env.run(["fetch"] + http + [allowed, strict]).status == 0)
    origin("/_down?id=\(id)&how=503")
    #expect(env.run(["fetch"] + http + [allowed]).status == 0, "the response allowed it")
    let refused = env.run(["fetch", "--stale-if-error"] + http + [strict])
    #expect(refused.status == 8, "must-revalidate: \(refused.stderr)")
    origin("/_up?id=\(id)")
    #expect(env.run(["fetch"] + http + [strict]).status == 0, "back up: 304")
  }
}
