import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A careless or hostile operator (issue 21): values that would become two config lines, a
/// config file kept behind a symbolic link, a config file that is no regular file.
@Suite("imgcache config against hostile values: line breaks, symlinks, FIFOs", .serialized)
struct HostileConfigTests {
  let env = CLIEnvironment()

  /// `config get insecure` as printed.
  private var insecure: String {
    env.run(["config", "get", "insecure"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test(
    "class 10: config set refuses U+2028, U+2029, NEL, CR, VT; the reader splits on LF only",
    arguments: ["\u{2028}", "\u{2029}", "\u{85}", "\r", "\u{0B}", "\u{0C}"])
  func lineBreakInjection(separator: String) throws {
    let value = "ua" + separator + "insecure = true"
    let output = env.run(["config", "set", "--user", "user_agent", value])
    #expect(output.status == 2, "\(output.stderr)")
    expectCleanError(output, contains: "user_agent")
    let written = (try? String(contentsOfFile: env.configFile, encoding: .utf8)) ?? ""
    #expect(!written.contains("insecure"))
    #expect(insecure == "false")

    // Written by hand: the reader refuses the line instead of finding a second one.
    try "user_agent = \(value)\njobs = 3\n".write(
      toFile: env.configFile, atomically: true, encoding: .utf8)
    let read = env.run(["config", "get", "insecure"])
    #expect(read.status == 2, "\(read.stdout)")
    expectCleanError(read, contains: env.configFile + ":1")
    try FileManager.default.removeItem(atPath: env.configFile)
  }

  @Test("CRLF config files still read as one line each")
  func crlf() throws {
    try "jobs = 3\r\nuser_agent = crlf-agent\r\n".write(
      toFile: env.configFile, atomically: true, encoding: .utf8)
    #expect(env.run(["config", "get", "jobs"]).stdout == "3\n")
    #expect(env.run(["config", "get", "user_agent"]).stdout == "crlf-agent\n")
  }

  @Test("class 8: config set through a symlinked config file writes the link's target")
  func symlinkedConfig() throws {
    let dotfiles = env.root.path + "/dotfiles"
    try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: true)
    let target = dotfiles + "/imgcache.conf"
    try "# my settings\njobs = 2\n".write(toFile: target, atomically: true, encoding: .utf8)
    chmod(target, 0o600)
    try FileManager.default.createSymbolicLink(
      atPath: env.configFile, withDestinationPath: "../../dotfiles/imgcache.conf")
    let output = env.run(["config", "set", "--user", "jobs", "5"])
    #expect(output.status == 0, "\(output.stderr)")
    let link = try FileManager.default.destinationOfSymbolicLink(atPath: env.configFile)
    #expect(link == "../../dotfiles/imgcache.conf", "the link stays a link")
    let text = try String(contentsOfFile: target, encoding: .utf8)
    #expect(text == "# my settings\njobs = 5\n")
    #expect(env.run(["config", "get", "jobs"]).stdout == "5\n")
  }

  @Test("a config file that is a FIFO, a folder or over 1 MiB is refused at once, named")
  func notARegularFile() throws {
    let files = [env.cacheDirectory + "/imgcache.conf", env.configFile]
    try FileManager.default.createDirectory(
      atPath: env.cacheDirectory, withIntermediateDirectories: true)
    let large = String(repeating: "# a comment line of the policy file\n", count: 30_000)
    let kinds: [(String, (String) throws -> Void)] = [
      ("not a regular file", { #expect(mkfifo($0, 0o600) == 0) }),
      (
        "not a regular file",
        { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }
      ),
      (
        "larger than 1048576 bytes",
        {
          try large.write(toFile: $0, atomically: true, encoding: .utf8); chmod($0, 0o600)
        }
      ),
    ]
    for file in files {
      for (reason, make) in kinds {
        try make(file)
        // A FIFO was opened and waited on for ever: bounded here by timeout(1).
        var commands = [["query", "https://example.com/a.png"]]
        if file == env.configFile { commands.append(["config", "set", "--user", "jobs", "3"]) }
        for arguments in commands {
          let output = ImgCacheTestSupport.run(
            "/usr/bin/timeout", ["-s", "KILL", "20", imgcacheBinary] + arguments,
            environment: env.environment)
          #expect(output.status != 137 && output.status != 0, "\(file) \(arguments)")
          expectCleanError(output, contains: "cannot read config file \(file): \(reason)")
        }
        try FileManager.default.removeItem(atPath: file)
      }
    }
  }
}
