import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Start-up: what a command that never touches the network loads (a hit is a process start).
@Suite("imgcache start-up: libcurl only when a download starts", .serialized)
struct StartupTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// The shared libraries the dynamic loader reported loading for one run (LD_DEBUG=libs).
  private func loadedLibraries(_ arguments: [String]) -> (status: Int32, libraries: String) {
    let result = env.run(arguments, environment: ["LD_DEBUG": "libs"])
    let lines = result.stderr.split(separator: "\n").filter { $0.contains("calling init: ") }
    return (result.status, lines.joined(separator: "\n"))
  }

  @Test("size, query, list, stats, a cache hit: libcurl and its thirty libraries not loaded")
  func offlineCommandsSkipLibcurl() throws {
    let url = servers.nginx("base.png?startup=1")
    let first = loadedLibraries(["fetch", url])
    #expect(first.status == 0)
    #expect(first.libraries.contains("libcurl"), "a download loads libcurl")
    for arguments in [
      ["size"], ["query", url], ["fetch", url], ["list"], ["stats"], ["--version"],
    ] {
      let run = loadedLibraries(arguments)
      #expect(run.status == 0, "\(arguments)")
      #expect(!run.libraries.contains("libcurl"), "\(arguments) loaded libcurl")
      #expect(!run.libraries.isEmpty, "LD_DEBUG gave no report for \(arguments)")
    }
  }
}
