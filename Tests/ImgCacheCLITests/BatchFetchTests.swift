import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `fetch -i`: one process answers a script's URLs one line at a time, in order.
@Suite("imgcache fetch -i: a co-process for scripts", .serialized)
struct BatchFetchTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("a line in, its answer out at once, while stdin stays open; failures are empty lines")
  func coprocess() throws {
    let coprocess = try env.coprocess(["fetch", "-i", "-"])
    func ask(_ url: String) -> String? {
      coprocess.write(url + "\n")
      return coprocess.output.line()
    }
    let png = servers.nginx("base.png?co=1")
    let first = try #require(ask(png))
    #expect(first.hasPrefix(env.cacheDirectory + "/data/") && first.hasSuffix(".png"))
    #expect(ask(servers.fault("/status/404?co=1")) == "")
    #expect(ask("not a url") == "")
    #expect(ask(png) == first)
    #expect(ask(servers.nginx("base.gif?co=1"))?.hasSuffix(".gif") == true)
    // Issue 21, class 17: a blank or comment line gets its (empty) line too, at once.
    #expect(ask("") == "")
    #expect(ask("# a comment") == "")
    #expect(ask("   ") == "")
    #expect(ask(png) == first)
    // The most severe status of the stream, as for a batch: the malformed URL (2) over the 404.
    #expect(try coprocess.finish().status == 2)
  }

  @Test("lines already there are answered in input order; --json gives a record per URL")
  func ordered() throws {
    let urls =
      (0..<20).map { servers.nginx("base.jpg?order=\($0)") } + [
        servers.fault("/html?order=1")
      ]
    let text = env.run(["fetch", "-i", "-"], input: urls.joined(separator: "\n") + "\n")
    #expect(text.status == 9)
    let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 22 && lines[20].isEmpty && lines[21].isEmpty)
    let json = env.run(["fetch", "--json", "-i", "-"], input: urls.joined(separator: "\n"))
    let records = CLIEnvironment.records(json)
    #expect(records.compactMap { $0["url"] as? String } == urls)
    #expect(records.last?["status"] as? String == "error")
    #expect(env.run(["fetch", "-i", "-", "-o", env.root.path + "/x.png"]).status == 2)
    // Every line answered: blank and comment lines as empty lines, or error records.
    let mixed = [urls[0], "", "# note", urls[1]].joined(separator: "\n") + "\n"
    let plain = env.run(["fetch", "-i", "-"], input: mixed)
    #expect(plain.status == 0, "\(plain.stderr)")
    let answers = plain.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(answers.count == 5 && answers[1].isEmpty && answers[2].isEmpty && !answers[3].isEmpty)
    let recorded = CLIEnvironment.records(env.run(["fetch", "--json", "-i", "-"], input: mixed))
    #expect(recorded.count == 4)
    #expect(recorded.map { $0["status"] as? String } == ["hit", "error", "error", "hit"])
  }
}
