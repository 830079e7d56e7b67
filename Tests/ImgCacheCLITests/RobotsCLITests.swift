import Foundation
import ImgCacheTestSupport
import Testing

/// `--robots` against a real origin on 127.0.0.1 (docs/design.md, Politeness): robots.txt by
/// host name (the fault server answers by the `r-<kind>-…` label, names pinned with
/// `--resolve`), asked once per host and kept in the index, and `X-Robots-Tag` honoured
/// before the body.
@Suite("imgcache --robots: robots.txt (RFC 9309) and X-Robots-Tag")
struct RobotsCLITests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// A host name of `kind` no other test uses.
  func host(_ kind: String) -> String {
    "r-\(kind)-\(UUID().uuidString.prefix(8).lowercased()).test"
  }
  /// `--resolve` for `hosts`.
  func pins(_ hosts: [String]) -> [String] {
    hosts.flatMap { ["--resolve", "\($0):\(servers.faultPort):127.0.0.1"] }
  }
  func url(_ host: String, _ path: String) -> String {
    "http://\(host):\(servers.faultPort)\(path)"
  }
  /// How many times each host asked for /robots.txt.
  func robotsAsked() -> [String: Int] {
    let text = run("/usr/bin/curl", ["-s", servers.fault("/_robots")]).stdout
    return (try? JSONDecoder().decode([String: Int].self, from: Data(text.utf8))) ?? [:]
  }
  /// The `status` of each JSON line, by URL.
  func statuses(_ stdout: String) -> [String: String] {
    var result = [String: String]()
    for line in stdout.split(separator: "\n") {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let url = object["url"] as? String, let status = object["status"] as? String
      else { continue }
      result[url] = status
    }
    return result
  }

  @Test("a disallowed URL is never requested: status disallowed, exit 14, listed apart")
  func disallowedNeverRequested() throws {
    let name = host("deny")
    let id = UUID().uuidString.prefix(8)
    let denied = url(name, "/image/base.png?private=\(id)")
    let allowed = url(name, "/image/base.png?ok=\(id)")
    let saved = env.root.path + "/failed.txt"
    let run = env.run(
      ["prefetch", "--json", "--robots", "-i", "-", "--save-failed", saved] + pins([name]),
      input: "\(denied)\n\(allowed)\n")
    #expect(run.status == 14, "\(run.stderr)")
    let status = statuses(run.stdout)
    #expect(status[denied] == "disallowed" && status[allowed] == "downloaded", "\(run.stdout)")
    #expect(
      run.stdout.contains("\"exit_code\":14") && run.stdout.contains("\"kind\":\"disallowed\""))
    let requests = servers.stats()?.requests ?? [:]
    #expect(requests["/image/base.png?private=\(id)"] == nil, "the disallowed URL was requested")
    #expect(requests["/image/base.png?ok=\(id)"] == 1)
    #expect(robotsAsked()[name] == 1)
    #expect(run.stderr.contains("1 disallowed (robots)") && run.stderr.contains("0 failed"))
    #expect(run.stderr.contains("Disallow: /*private"), "\(run.stderr)")
    let list = try String(contentsOfFile: saved, encoding: .utf8)
    let lines = list.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("# disallowed: \(denied)") }, "\(list)")
    #expect(!lines.contains { !$0.hasPrefix("#") }, "a rerun asks for nothing: \(list)")
    // No failed-request record: asked again, it is disallowed again (not blacklisted, 11).
    let again = env.run(["fetch", "--robots", denied] + pins([name]))
    #expect(again.status == 14 && again.stderr.contains("robots.txt"), "\(again.stderr)")
    #expect(robotsAsked()[name] == 1, "kept in the index for the next process")
  }

  @Test("groups and statuses: our group, another agent's, 404 allows all, 503 disallows all")
  func groupsAndStatuses() {
    let names = ["ours", "other", "404", "503"].map(host)
    let urls = names.map { url($0, "/image/base.png?g=\($0)") }
    let run = env.run(
      ["prefetch", "--json", "--robots", "--retry", "0", "-i", "-"] + pins(names),
      input: urls.joined(separator: "\n") + "\n")
    #expect(run.status == 14, "\(run.stderr)")
    let status = statuses(run.stdout)
    #expect(status[urls[0]] == "disallowed", "a group naming ImgCache/9 applies to imgcache")
    #expect(status[urls[1]] == "downloaded", "another agent's group does not apply")
    #expect(status[urls[2]] == "downloaded", "a 404 robots.txt allows all")
    #expect(status[urls[3]] == "disallowed", "a 503 robots.txt disallows all")
    #expect(run.stderr.contains("could not be had"), "\(run.stderr)")
  }

  @Test("robots.txt is asked once per host for a whole list, and by no later process")
  func oncePerHost() {
    let names = (0..<3).map { _ in host("slow") }
    var urls = [String]()
    for name in names { for n in 0..<12 { urls.append(url(name, "/image/base.png?n=\(n)")) } }
    let run = env.run(
      ["prefetch", "-q", "--robots", "-j", "8", "-i", "-"] + pins(names),
      input: urls.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.stderr)")
    let later = env.run(
      ["fetch", "--robots", url(names[0], "/image/base.png?later")] + pins(names))
    #expect(later.status == 0, "\(later.stderr)")
    let asked = robotsAsked()
    #expect(names.allSatisfy { asked[$0] == 1 }, "\(names.map { asked[$0] ?? 0 })")
    let stats = env.run(["stats", "--json"]).stdout
    #expect(stats.contains("\"robots_fetches\":3"), "\(stats)")
  }

  @Test("a robots.txt over max_filesize is read from its start, not failed (nor all disallowed)")
  func largeFile() {
    let name = host("big")
    let denied = url(name, "/image/base.png?private=big")
    let allowed = url(name, "/image/base.png?ok=big")
    let run = env.run(
      ["prefetch", "--json", "--robots", "--max-filesize", "100K", "-i", "-"] + pins([name]),
      input: "\(denied)\n\(allowed)\n")
    #expect(run.status == 14, "\(run.stderr)")
    let status = statuses(run.stdout)
    #expect(status[denied] == "disallowed" && status[allowed] == "downloaded", "\(run.stdout)")
  }

  @Test("without --robots (or with --no-robots over the policy) no robots.txt is asked")
  func ignoredByDefault() {
    let name = host("ours")
    let run = env.run(["fetch", url(name, "/image/base.png?plain")] + pins([name]))
    #expect(run.status == 0, "\(run.stderr)")
    let overridden = env.run(
      ["fetch", "--no-robots", url(name, "/image/base.png?overridden")] + pins([name]),
      environment: ["IMGCACHE_ROBOTS": "obey"])
    #expect(overridden.status == 0, "\(overridden.stderr)")
    #expect(robotsAsked()[name] == nil)
    let obeyed = env.run(
      ["fetch", url(name, "/image/base.png?policy")] + pins([name]),
      environment: ["IMGCACHE_ROBOTS": "obey"])
    #expect(obeyed.status == 14, "the policy key alone: \(obeyed.stderr)")
  }

  @Test("X-Robots-Tag: an opted-out response ends at its headers, its body never read")
  func optOutBeforeBody() {
    func optOut(_ tags: [String], stall: Int = 20, filler: Int = 0) -> String {
      let query = tags.enumerated().map { index, tag in
        "\(index == 0 ? "tag" : "tag2")=\(tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
      }
      return servers.fault(
        "/optout?\(query.joined(separator: "&"))&stall=\(stall)&filler=\(filler)&id=\(UUID())")
    }
    // Half the body comes with the headers, the rest 20 s later: a client that read it would
    // have bytes, and would time out (10 s without a byte) before the rest.
    for tags in [
      ["noimageai"], ["noindex, NOAI"], ["googlebot: noindex", "none"], ["imgcache: none"],
    ] {
      let run = env.run(["fetch", "--json", "--robots", "--timeout", "10s", optOut(tags)])
      #expect(run.status == 14, "\(tags): \(run.stderr)")
      #expect(run.stdout.contains("\"downloaded_bytes\":0"), "\(tags): \(run.stdout)")
      #expect(run.stdout.contains("\"status\":\"disallowed\""), "\(tags): \(run.stdout)")
      #expect(run.stderr.contains("X-Robots-Tag"), "\(tags): \(run.stderr)")
    }
    for tags in [["googlebot: noai"], ["noindex, nofollow"]] {
      let run = env.run(["fetch", "--robots", optOut(tags, stall: 0)])
      #expect(run.status == 0, "\(tags): \(run.stderr)")
    }
    let ignored = env.run(["fetch", optOut(["noimageai"], stall: 0)])
    #expect(ignored.status == 0, "without --robots: \(ignored.stderr)")
    // Every line counts: the opt-out after 64 others (past the lines read, the response is
    // refused: the opt-out could be in one not read), and 63 others then a line allowed.
    let late = env.run(["fetch", "--robots", optOut(["noimageai"], stall: 0, filler: 64)])
    #expect(late.status == 14, "\(late.stderr)")
    #expect(late.stderr.contains("X-Robots-Tag"), "\(late.stderr)")
    let many = env.run(["fetch", "--robots", optOut(["noindex"], stall: 0, filler: 63)])
    #expect(many.status == 0, "\(many.stderr)")
  }
}
