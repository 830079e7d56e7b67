import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheUntrusted

/// robots.txt (RFC 9309) and `X-Robots-Tag` as `--robots` reads them: parsed from untrusted
/// text, matched by the RFC's rules, with no server.
@Suite("robots.txt and X-Robots-Tag: RFC 9309 groups, longest match, opt-outs")
struct RobotsTests {
  func rules(_ text: String) -> RobotsRules {
    RobotsRules.parse(Array(text.utf8), agent: "imgcache")
  }

  @Test(
    "our group wins over *; groups naming us are merged; a product token ignores case and version")
  func groups() {
    let text = """
      User-agent: *
      Disallow: /

      User-Agent: ImgCache/2.1
      Disallow: /a/

      user-agent: other
      user-agent: imgcache
      disallow: /b/
      """
    let robots = rules(text)
    #expect(robots.allows("/c.png"), "the * group does not apply once a group names us")
    #expect(!robots.allows("/a/x.png") && !robots.allows("/b/x.png"))
    #expect(!rules("User-agent: *\nDisallow: /\n").allows("/x.png"))
    #expect(rules("User-agent: other\nDisallow: /\n").allows("/x.png"), "no group for us: allowed")
    #expect(rules("").allows("/x"), "an empty file allows all")
    #expect(rules("Disallow: /\n").allows("/x"), "a rule before any user-agent is in no group")
    #expect(rules("User-agent: imgcache\nDisallow:\n").allows("/x"), "an empty disallow")
    #expect(
      rules("User-agent: imgcache\nUser-agent: *\nDisallow: /p\n").rules.count == 1,
      "one group naming both: its rules once")
  }

  @Test("the longest match wins; allow wins a tie; * and $ as the RFC's examples")
  func matching() {
    let robots = rules(
      """
      User-agent: *
      Allow: /publications/
      Disallow: /
      Disallow: /p$
      Allow: /*.png$
      Disallow: /private*/
      Allow: /page
      Disallow: /*.gif
      """)
    #expect(robots.allows("/publications/x.jpg"))
    #expect(!robots.allows("/other.jpg"))
    #expect(robots.allows("/x/y.png") && !robots.allows("/x/y.png?size=2"))
    #expect(!robots.allows("/p"))
    #expect(robots.allows("/page"), "Allow /page over Disallow /p$ (which does not match)")
    #expect(!robots.allows("/private-stuff/a.png"), "longer than /*.png$")
    #expect(!robots.allows("/a.gif") && !robots.allows("/a.gif?x"))
    let tie = rules("User-agent: *\nDisallow: /folder\nAllow: /folder\n")
    #expect(tie.allows("/folder/page"), "equal length: the allow")
    #expect(robots.deciding("/other.jpg")?.line == "Disallow: /")
  }

  @Test("percent-encoding: one spelling per character, on both sides (§2.2.2)")
  func encoding() {
    #expect(!rules("User-agent: *\nDisallow: /%7Ejoe/\n").allows("/~joe/a.png"))
    #expect(!rules("User-agent: *\nDisallow: /~joe/\n").allows("/%7ejoe/a.png"))
    #expect(!rules("User-agent: *\nDisallow: /foo/bar/ツ\n").allows("/foo/bar/%E3%83%84"))
    #expect(!rules("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n").allows("/foo/bar/ツ"))
    #expect(rules("User-agent: *\nDisallow: /a%2Fb\n").allows("/a/b"), "a reserved / stays encoded")
  }

  @Test("/robots.txt is always allowed; comments, CRLF, CR and odd spacing are read")
  func syntax() {
    #expect(rules("User-agent: *\nDisallow: /\n").allows("/robots.txt"))
    let robots = rules("User-agent:*   # us\r\nDisallow :  /x # not this\rAllow:/x/y\r\n")
    #expect(!robots.allows("/x/z") && robots.allows("/x/y/1"))
    #expect(rules("User-agent: *\nDisallow: x\n").allows("/x"), "a pattern that is no path")
  }

  @Test("hostile files: only the first 512 KiB is read; stars and long lines never hang")
  func hostile() {
    let padding = String(repeating: "# pad\n", count: RobotsRules.parsedLimit / 6 + 10)
    #expect(rules("User-agent: *\n" + padding + "Disallow: /\n").allows("/x"), "past the limit")
    let stars = "/" + String(repeating: "*a", count: 2_000) + "b"
    let path = "/" + String(repeating: "a", count: 8_000)
    let started = ContinuousClock.now
    let robots = rules("User-agent: *\nDisallow: \(stars)\n")
    #expect(robots.allows(path))
    #expect(ContinuousClock.now - started < .seconds(20), "bounded work")
    let binary = (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
    _ = RobotsRules.parse(binary, agent: "imgcache").allows("/x")
    #expect(
      rules("User-agent: *\nDisallow: /" + String(repeating: "x", count: 5_000)).rules.isEmpty)
  }

  @Test("rules kept in the index read back the same; a damaged row is no rules")
  func encoded() {
    let robots = rules("User-agent: *\nDisallow: /a*b$\nAllow: /%7Ec\n")
    #expect(RobotsRules(encoded: robots.encoded) == robots)
    #expect(RobotsRules(encoded: "") == .allowAll)
    #expect(RobotsRules(encoded: "Xfoo") == nil && RobotsRules(encoded: "Dnopath") == nil)
  }

  @Test("X-Robots-Tag: noimageai, noai and none, for everyone or for imgcache; never for another")
  func robotsTag() {
    func optOut(_ lines: [String]) -> String? { RobotsTag.optOut(in: lines, agent: "imgcache") }
    #expect(optOut(["noimageai"]) == "noimageai")
    #expect(optOut(["noindex, NoAI"]) == "noai")
    #expect(optOut(["none"]) == "none")
    #expect(optOut(["noindex, nofollow"]) == nil)
    #expect(optOut(["googlebot: noai"]) == nil)
    #expect(optOut(["googlebot: noindex", "noai"]) == "noai", "each line has its own agent")
    #expect(optOut(["googlebot: noindex, imgcache: noimageai"]) == "noimageai")
    #expect(optOut(["ImgCache: none"]) == "none")
    #expect(optOut(["unavailable_after: 25 Jun 2010 15:00:00 PST, noai"]) == "noai")
    #expect(optOut(["", ",,,", ":", "a:b:c"]) == nil)
  }

  @Test("a URL's origin and path: lower case, no default port, the query kept, no fragment")
  func parts() {
    let parts = Fetcher.robotsParts(of: "HTTP://Img.Example:80/A/b.png?x=1#top")
    #expect(parts?.origin == "http://img.example" && parts?.path == "/A/b.png?x=1")
    #expect(Fetcher.robotsParts(of: "https://h:443")?.origin == "https://h")
    #expect(Fetcher.robotsParts(of: "https://h:8443?q")?.path == "/?q")
    #expect(Fetcher.robotsParts(of: "http://[::1]:8080/x")?.origin == "http://[::1]:8080")
    #expect(Fetcher.robotsParts(of: "nothing") == nil)
  }
}

/// The robots step of the transition function.
@Suite("The fetch machine asks robots.txt before the flight and the lock")
struct FetchMachineRobotsTests {
  let url = "https://img.example/a.png"

  func downloading() -> Fetch {
    var fetch = Fetch(url, options: FetchOptions())
    fetch.state = .download(
      Fetch.Plan(
        validators: nil, sequence: 1, fingerprint: "fp", file: "ab/cd.png", takesLock: true,
        robots: .toConsult))
    return fetch
  }

  @Test("allowed: then the flight, the lock and the request, which honours X-Robots-Tag")
  func allowed() {
    var fetch = downloading()
    let rules = FetchMachine.Rules()
    guard case .consultRobots(let asked) = FetchMachine.next(&fetch, rules: rules) else {
      Issue.record("robots not asked first")
      return
    }
    #expect(asked == url && fetch.flight == nil && fetch.lock == nil)
    guard case .join = FetchMachine.handle(.robots(.allowed), for: &fetch, rules: rules) else {
      Issue.record("no join after robots allowed")
      return
    }
    guard case .download(let plan) = fetch.state else { return }
    #expect(plan.robots == .cleared)
  }

  @Test("refused: done as disallowed, counted, never recorded as a failed request")
  func refused() {
    var fetch = downloading()
    let rules = FetchMachine.Rules()
    _ = FetchMachine.next(&fetch, rules: rules)
    let refusal = CacheError(.disallowed, "robots.txt disallows it", url: url)
    guard
      case .noteFailure(let noted, let fingerprint) = FetchMachine.handle(
        .robots(.refused(refusal)), for: &fetch, rules: rules)
    else {
      Issue.record("no note of the refusal")
      return
    }
    #expect(noted.kind == .disallowed && fingerprint == nil)
    guard case .settle = FetchMachine.handle(.proceed, for: &fetch, rules: rules) else {
      Issue.record("not settled")
      return
    }
    #expect(fetch.result.outcome == .failure(refusal))
  }
}

/// The review's findings, kept as regressions.
@Suite("robots.txt: hostile patterns, byte-order marks, values that look like agents")
struct RobotsRegressionTests {
  func rules(_ text: String) -> RobotsRules {
    RobotsRules.parse(Array(text.utf8), agent: "imgcache")
  }

  @Test(
    "long literal pieces between stars: linear work (a backtracking matcher took billions of steps)"
  )
  func longPieces() {
    let piece = String(repeating: "a", count: 4_000)
    var file = "User-agent: *\n"
    for n in 0..<100 { file += "Disallow: /*\(piece)\(n)b\n" }
    let robots = rules(file)
    #expect(robots.rules.count == 100)
    let path = "/" + String(repeating: "a", count: 8_000)
    var allowed = 0
    for _ in 0..<20 where robots.allows(path) { allowed += 1 }
    #expect(allowed == 20)
    #expect(!robots.allows(path + "7b"), "a piece found at its leftmost place still matches")
  }

  @Test("pattern semantics: pieces in order, $ at the end only, a trailing * is any rest")
  func pieces() {
    func match(_ pattern: String, _ path: String) -> Bool {
      RobotsPattern(pattern).matches(Array(path.utf8))
    }
    #expect(match("/a*b*c", "/axxbyyc") && match("/a*b*c", "/abcabc") && !match("/a*b*c", "/acb"))
    #expect(match("/a*b$", "/abab") && !match("/a*b$", "/aba") && match("/*$", "/x"))
    #expect(match("/a$", "/a") && !match("/a$", "/ab") && match("/a*", "/a"))
    #expect(match("*.png$", "/x.png") && !match("*.png$", "/x.png?y") && match("*", "/"))
    #expect(match("/ab*ba$", "/aba") == false, "pieces never overlap")
    #expect(match("/x**y", "/xy"))
  }

  @Test("a UTF-8 byte-order mark before the first line is no part of it")
  func byteOrderMark() {
    let robots = RobotsRules.parse(
      [0xEF, 0xBB, 0xBF] + Array("User-agent: *\nDisallow: /\n".utf8), agent: "imgcache")
    #expect(!robots.allows("/x.png"))
    #expect(rules("User-agent: *bot\nDisallow: /\n").allows("/x"), "*bot is no wildcard")
  }

  @Test("X-Robots-Tag: a value with colons is no agent; the opt-out after it counts")
  func valuesWithColons() {
    #expect(
      RobotsTag.optOut(
        in: ["unavailable_after: Friday, 25-Jun-10 15:00:00 PST, noai"], agent: "imgcache")
        == "noai")
    #expect(RobotsTag.optOut(in: ["other-bot: noai"], agent: "imgcache") == nil)
  }

  @Test("dot segments are removed as libcurl sends the path: /a/../private is /private")
  func dotSegments() {
    #expect(Fetcher.robotsParts(of: "http://h/a/../private/x.png")?.path == "/private/x.png")
    #expect(Fetcher.withoutDotSegments("/a/./b/../c?x=/../y") == "/a/c?x=/../y")
    #expect(Fetcher.withoutDotSegments("/../..") == "/")
    #expect(Fetcher.withoutDotSegments("/a/b/..") == "/a/")
    #expect(Fetcher.withoutDotSegments("/a/.hidden") == "/a/.hidden")
    let denied = RobotsRules.parse(Array("User-agent: *\nDisallow: /private\n".utf8), agent: "x")
    #expect(!denied.allows(Fetcher.robotsParts(of: "http://h/ok/../private")?.path ?? ""))
  }
}
