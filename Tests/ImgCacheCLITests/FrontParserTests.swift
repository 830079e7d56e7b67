import ArgumentParser
import ImgCacheKit
import Testing

@testable import ImgCacheCLI

/// The front parser against swift-argument-parser: every command line it recognises must give
/// the very command the full parser gives, property by property (a property left out of
/// `FrontDefaults.swift`, or set unlike the parser, shows in the dump); every other line must
/// go to the full parser.
@Suite("imgcache front parser: fetch and query as the full parser reads them")
struct FrontParserTests {
  static let url = "http://127.0.0.1:8080/a.png?x=1&y=2"
  static let other = "https://example.com/b.jpg"

  /// Lines the front parser takes: every spelling it knows, before and after the command's
  /// name, with `=` and apart, alone and together.
  static let recognised: [[String]] = [
    ["fetch", url], ["fetch", url, other], ["query", url], ["query", url, other],
    ["fetch", "-i", "-"], ["fetch", "--input", "urls.txt"], ["fetch", "--input=urls.txt"],
    ["fetch", "-o", "out.png", url], ["fetch", "--output", "out.png", "--link", url],
    ["fetch", "--output=out.png", url], ["fetch", "--key", "k1", url], ["fetch", "--key=k", url],
    ["fetch", "--offline", url], ["fetch", "--reload", url], ["fetch", "--refresh", url],
    ["fetch", "--retry-failed", url], ["fetch", "--any", url], ["fetch", url, "--any"],
    ["fetch", "-i", "-", url, other], ["fetch", "--json", "-i", "-"],
    ["-d", "/tmp/c", "fetch", url], ["--dir", "/tmp/c", "fetch", url],
    ["--dir=/tmp/c", "query", url],
    ["fetch", "-d", "/tmp/c", url], ["query", "--dir", "/tmp/c", url],
    ["--config", "/tmp/conf", "fetch", url], ["fetch", "--config=/tmp/conf", url],
    ["-q", "fetch", url], ["fetch", "--quiet", url], ["-v", "query", url],
    ["query", "--verbose", url],
    ["--json", "fetch", url], ["fetch", "--json", url], ["query", "--json", url, other],
    ["--color", "never", "fetch", url], ["fetch", "--color=always", url],
    ["query", "--color", "auto", url],
    ["query", "--touch", url], ["query", url, "--touch", "--json"],
    ["fetch", "-o", "-", url], ["-d", "-", "query", url], ["fetch", "--key", "-", url],
    ["fetch", "--offline", "--json", "-q", "-d", "/tmp/c", "--any", url, other],
  ]

  /// Lines the front parser leaves to the full parser: help, errors, flags it does not know,
  /// a repeated flag, `--`, combined short flags, a value that looks like a flag.
  static let delegated: [[String]] = [
    [], ["--help"], ["-h"], ["fetch", "--help"], ["query", "-h", url], ["help", "fetch"],
    ["--version", "fetch"], ["fetch", "--version"], ["fetch"], ["query"], ["fetch", "-i"],
    ["fetch", "--", url], ["fetch", "-qv", url], ["fetch", "-", url], ["fetch", "-o", "-x", url],
    ["fetch", "--json", "--json", url], ["fetch", "-o", "a", "-o", "b", url],
    ["fetch", "--resize", "40x40", url], ["fetch", "--remote", "redis://127.0.0.1", url],
    ["fetch", "-H", "A: b", url], ["fetch", "--stale-if-error=any", url],
    ["query", "--ro-dir", "/x", url],
    ["fetch", "--color", "blue", url], ["fetch", "--offline", "-z", url],
    ["prefetch", "-i", "-"], ["size"], ["list"], ["fetch", "--touch", url],
    ["query", "--any", url],
    ["fetch", "-o", "a", url, other], ["fetch", "--link", url], ["--bogus", "fetch", url],
    ["--json", "query", "--json", url], ["-q", "fetch", "-q", url],
    ["-d", "/a", "fetch", "-d", "/b", url],
    ["fetch", "--dir=", url], ["fetch", "--output"],
    ["fetch", "--key", "a" + VariantSpec.keySeparator + "b", url],
  ]

  /// The whole state of a parsed command, wrappers included; an option group's title (help
  /// text, which the parser does not carry into the values it decodes) left out.
  private func described(_ command: any ParsableCommand) -> String {
    var text = ""
    dump(command, to: &text)
    return text.split(separator: "\n").filter {
      !$0.hasPrefix("    - title: ") && !$0.contains(" - title: ")
    }
    .joined(separator: "\n")
  }

  @Test("each recognised line gives the full parser's command, property by property")
  func recognisedLinesMatch() throws {
    for line in Self.recognised {
      guard let front = FrontParser.parse(line) else {
        Issue.record("the front parser did not take \(line)")
        continue
      }
      let full = try ImgCacheCommand.parseAsRoot(line)
      #expect(type(of: front) == type(of: full), "\(line)")
      let (mine, theirs) = (described(front), described(full))
      let differing = zip(mine.split(separator: "\n"), theirs.split(separator: "\n"))
        .first { $0 != $1 }.map { "front: \($0)\nfull: \($1)" }
      #expect(mine == theirs, "\(line): \(differing ?? "lengths differ")")
      #expect(!described(front).contains(".definition"), "\(line): a property left unset")
    }
  }

  @Test("every other line goes to the full parser")
  func otherLinesDelegate() {
    for line in Self.delegated {
      if FrontParser.parse(line) != nil { Issue.record("\(line) was taken") }
    }
  }

  @Test("--version alone is answered by the front parser, as the full parser answers it")
  func version() {
    guard FrontParser.asksVersion(["--version"]) else {
      Issue.record("--version not recognised")
      return
    }
    #expect(throws: (any Error).self) { try ImgCacheCommand.parseAsRoot(["--version"]) }
  }
}
