import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// The hardening classes of numbers, standard output, umask, parsing and messages (the suite
/// and its helpers are in RobustnessTests.swift).
extension RobustnessTests {
  /// A port nothing listens on: these URLs are never fetched.
  static let nowhere = "http://127.0.0.1:9/"

  @Test("--resolve: an address that is not an IP literal, or a host curl would not pin, is exit 2")
  func resolveEntries() {
    // The URL's port is one nothing listens on: were an entry accepted, the run would fail
    // with exit 4 (a network failure), not 2.
    for entry in [
      "leak.test:9:999.999.999.999", "leak.test:9:1.2.3", "+leak.test:9:127.0.0.1",
      "*:9:127.0.0.1", "-leak.test:9:127.0.0.1", "leak.test:9:127.0.0.1,", "leak.test:9:[::1",
      "leak.test:9:example.com",
    ] {
      let output = run(["fetch", "--resolve", entry, "http://leak.test:9/a.png"])
      #expect(output.status == 2, "\(entry): \(output.stderr)")
      expectCleanError(output, contains: "--resolve")
    }
    for entry in ["leak.test:9:127.0.0.1", "leak.test:9:[::1]", "leak.test:9:[::1],127.0.0.1"] {
      let output = run(["fetch", "--resolve", entry, "http://leak.test:9/a.png"])
      #expect(output.status == 4, "\(entry): \(output.stderr)")
    }
  }

  @Test("class 12: sizes, durations and counts out of range are exit 2 naming their source")
  func outOfRangeNumbers() throws {
    let url = Self.nowhere + "n.png"
    let huge = "99999999999999999999"
    let cases: [(arguments: [String], variables: [String: String], source: String)] = [
      (["fetch", "--offline", "--timeout", huge + "d", url], [:], "--timeout"),
      (["fetch", "--offline", "--connect-timeout", "36501d", url], [:], "--connect-timeout"),
      (["fetch", "--offline", "-m", huge + "d", url], [:], "--max-time"),
      (["fetch", "--offline", "--failed-ttl", "5300w", url], [:], "--failed-ttl"),
      (["fetch", "--offline", "--retry", "101", url], [:], "--retry"),
      (["fetch", "--offline", "--max-filesize", huge + "999", url], [:], "--max-filesize"),
      (["fetch", "--offline", url], ["IMGCACHE_RETRY_DELAY": huge + "d"], "IMGCACHE_RETRY_DELAY"),
      (["fetch", "--offline", url], ["IMGCACHE_JOBS": huge], "IMGCACHE_JOBS"),
      (["fetch", "--offline", url], ["IMGCACHE_MAX_REDIRS": huge], "IMGCACHE_MAX_REDIRS"),
      (["clean", "--dry-run", "--max-age", "1000000d"], [:], "--max-age"),
      (["clean", "--dry-run", "--max-age", "36501d"], [:], "--max-age"),
      (["clean", "--dry-run", "--max-size", huge + "999"], [:], "--max-size"),
      (["clean", "--dry-run", "--max-entries", huge], [:], "--max-entries"),
      (["size"], ["IMGCACHE_MAX_SIZE": huge + "999"], "IMGCACHE_MAX_SIZE"),
    ]
    for (arguments, variables, source) in cases {
      let output = run(arguments, environment: variables)
      #expect(output.status == 2, "\(arguments) \(variables): \(output.stderr)")
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      expectCleanError(output, contains: source)
    }
    try writeConfig("max_age = \(huge)d\n")
    let fromFile = run(["clean", "--dry-run"])
    #expect(fromFile.status == 2)
    expectCleanError(fromFile, contains: env.configFile + ":1")
    try FileManager.default.removeItem(atPath: env.configFile)
    // 100 years is the limit, not past it.
    #expect(run(["clean", "--dry-run", "-q", "--max-age", "36500d"]).status == 0)
  }

  @Test("class 19: concurrency is capped at 5,000 transfers, with a clear message")
  func concurrencyCap() {
    let url = Self.nowhere + "j.png"
    let cases: [(arguments: [String], variables: [String: String], source: String)] = [
      (["prefetch", "--offline", "-j", "100000", url], [:], "--jobs"),
      (["prefetch", "--offline", "-j", "5001", url], [:], "--jobs"),
      (["prefetch", "--offline", "--max-per-host", "10000", url], [:], "--max-per-host"),
      (["prefetch", "--offline", url], ["IMGCACHE_JOBS": "100000"], "IMGCACHE_JOBS"),
    ]
    for (arguments, variables, source) in cases {
      let output = run(arguments, environment: variables)
      #expect(output.status == 2, "\(arguments) \(variables): \(output.stderr)")
      expectCleanError(output, contains: source)
      #expect(output.stderr.contains("5000"), "no limit named: \(output.stderr)")
    }
    let most = run(["-q", "prefetch", "--offline", "-j", "5000", "--max-per-host", "5000", url])
    #expect(most.status == 1, "an offline miss; stderr: \(most.stderr)")
  }

  @Test("class 13: a write error on stdout is exit 3; a closed pipe ends quietly")
  func standardOutputErrors() throws {
    let url = servers.nginx("base.png?so=\(UUID().uuidString)")
    #expect(env.run(["fetch", url]).status == 0)
    let commands = [
      ["query", url], ["query", "--json", url], ["fetch", url], ["--json", "fetch", url],
    ]
    for arguments in commands + [["-q", "prefetch", "--json", url]] {
      let full = run(arguments, shell: "exec \"$@\" > /dev/full")
      #expect(full.status == 3, "\(arguments): \(full.stderr)")
      expectCleanError(full, contains: "standard output")
    }
    for arguments in commands + [["-q", "prefetch", "--json", url]] {
      let pipe = Pipe()
      try pipe.fileHandleForReading.close()  // nobody will ever read: every write is EPIPE
      let child = try launch(arguments, stdout: pipe.fileHandleForWriting)
      try? pipe.fileHandleForWriting.close()
      guard child.wait(within: 20) else { continue }
      expectExit(child, 0)
      #expect(child.stderr.isEmpty, "\(arguments): \(child.stderr)")
    }
  }

  @Test("class 14: files and folders follow the umask: 0600/0700 under 077, 0644/0755 under 022")
  func umask() throws {
    let id = UUID().uuidString
    for (mask, fileMode, folderMode) in [("077", 0o600, 0o700), ("022", 0o644, 0o755)] {
      let directory = env.root.path + "/cache-\(mask)"
      let copy = env.root.path + "/copy-\(mask).png"
      let urls = ["base.png", "base.jpg"].map { servers.nginx("\($0)?um=\(id)-\(mask)") }
      let script = "umask \(mask); exec \"$@\""
      let variables = ["IMGCACHE_DIR": directory]
      let fetched = run(["fetch", "-o", copy, urls[0]], shell: script, environment: variables)
      #expect(fetched.status == 0, "stderr: \(fetched.stderr)")
      let prefetched = run(["-q", "prefetch", urls[1]], shell: script, environment: variables)
      #expect(prefetched.status == 0, "stderr: \(prefetched.stderr)")
      var modes = [copy: mode(copy), directory: mode(directory)]
      let walk = FileManager.default.enumerator(atPath: directory)
      while let name = walk?.nextObject() as? String {
        modes[directory + "/" + name] = mode(directory + "/" + name)
      }
      let data = modes.filter { $0.key.hasPrefix(directory + "/data/") && $0.value.0 == S_IFREG }
      #expect(data.count == 2, "\(modes.keys.sorted())")
      for (path, (kind, permissions)) in modes.sorted(by: { $0.key < $1.key }) {
        let expected = kind == S_IFDIR ? folderMode : fileMode
        #expect(
          permissions == expected,
          "umask \(mask): \(path) is \(String(permissions, radix: 8)), not \(String(expected, radix: 8))"
        )
      }
    }
  }

  @Test("class 15: CRLF lists and config files, --max-age -1s and 0, IDN hosts; NUL refused")
  func oddInput() throws {
    let id = UUID().uuidString
    let crlf = ["base.png", "base.jpg"].map { servers.nginx("\($0)?cr=\(id)") }
    let list = try env.root.write("crlf.txt", Array(crlf.map { $0 + "\r\n" }.joined().utf8))
    let prefetched = run(["prefetch", "-i", list])
    #expect(prefetched.status == 0, "stderr: \(prefetched.stderr)")
    #expect(env.run(["query"] + crlf).status == 0)

    try writeConfig("# policy\r\nmax_size = 1M\r\n\r\nmax_age = 2d\r\n")
    let configured = run(["--json", "clean", "--dry-run"])
    #expect(configured.status == 0, "stderr: \(configured.stderr)")
    // Read as one line, the whole file would be the comment of its first line.
    #expect(limit("max_size", configured) == 1_048_576, "CRLF lines: \(configured.stdout)")
    #expect(limit("max_age_seconds", configured) == 172_800, "CRLF lines: \(configured.stdout)")
    try FileManager.default.removeItem(atPath: env.configFile)

    // Negative is "never", 0 is "everything": both documented, both given as their own word.
    let never = run(["--json", "clean", "--dry-run", "--max-age", "-1s"])
    #expect(never.status == 0, "stderr: \(never.stderr)")
    #expect((limit("max_age_seconds", never) ?? 0) < 0)
    let all = run(["--json", "clean", "--dry-run", "--max-age", "0"])
    #expect(all.status == 0, "stderr: \(all.stderr)")
    #expect(limit("max_age_seconds", all) == 0)

    // International host names: an offline miss, and fetched (libcurl resolves *.localhost to
    // 127.0.0.1 itself) whatever the locale: LC_ALL=C here, where curl itself fails.
    let offline = run(["fetch", "--offline", "http://bücher.example/x.png"])
    #expect(offline.status == 1, "stderr: \(offline.stderr)")
    expectCleanError(offline, contains: "not cached")
    let idn = "http://bücher.localhost:\(servers.httpPort)/base.png?idn=\(id)"
    let fetched = run(["fetch", idn])
    #expect(fetched.status == 0, "an IDN host (curl fetches it); stderr: \(fetched.stderr)")

    // A NUL inside a line: that URL refused (2), never requested; the next line fetched.
    let good = servers.nginx("base.gif?nul=\(id)")
    let lines =
      Array(servers.fault("/image/base.png?nul=\(id)").utf8) + [0] + Array("x\n\(good)\n".utf8)
    let nul = run(["prefetch", "-i", try env.root.write("nul.txt", lines)])
    #expect(nul.status == 2, "stderr: \(nul.stderr)")
    #expect(nul.stderr.contains("control character"), "stderr: \(nul.stderr)")
    #expect(!nul.stderr.contains("\u{0}"))
    #expect(env.run(["query", good]).status == 0)
    let sent = servers.stats()?.requests.keys.filter { $0.contains("nul=\(id)") } ?? []
    #expect(sent.isEmpty, "requested: \(sent)")
  }

  @Test("class 18: messages escape control characters and never dump Swift or Foundation types")
  func messagesInImgcachesWords() throws {
    let hostile = Self.nowhere + "a\u{1B}[31mred\u{1B}]0;title\u{07}\u{9B}2J.png"
    let list = try env.root.write("hostile.txt", Array((hostile + "\n").utf8))
    let raw: Set<UInt32> = [0x1B, 0x07, 0x9B]
    for arguments in [
      ["fetch", "--offline", hostile], ["--json", "fetch", hostile], ["-v", "query", hostile],
      ["prefetch", "-i", list], ["remove", hostile],
    ] {
      let output = run(arguments)
      #expect(output.status != 0)
      #expect(
        !output.stderr.unicodeScalars.contains { raw.contains($0.value) },
        "\(arguments): raw control characters in \(output.stderr.debugDescription)")
      #expect(output.stderr.contains("\\x1b[31mred"), "\(arguments): \(output.stderr)")
    }

    let url = servers.nginx("base.png?words=\(UUID().uuidString)")
    #expect(env.run(["fetch", url]).status == 0)
    let file = try env.root.write("plain-file", [0x41])
    let cases: [(arguments: [String], variables: [String: String])] = [
      (["--json", "fetch", "-o", file + "/x.png", url], [:]),
      (["--json", "fetch", "-o", env.root.path + "/missing/x.png", url], [:]),
      (["--json", "-q", "prefetch", "--save-failed", file + "/x.txt", url], [:]),
      (["--json", "prefetch", "-i", env.root.path], [:]),
      (["--json", "fetch", url], ["IMGCACHE_DIR": file]),
      (["--json", "fetch", url], ["IMGCACHE_DIR": file + "/cache"]),
      (["--json", "fetch", "--cacert", file + ".pem", servers.nginxTLS("base.png")], [:]),
      (["--json", "fetch", servers.fault("/html?words=\(UUID().uuidString)")], [:]),
    ]
    let dumps = ["NSCocoaErrorDomain", "Error Domain=", "UserInfo=", "ImgCache", "CacheError("]
    for (arguments, variables) in cases {
      let output = run(arguments, environment: variables)
      #expect(output.status > 1, "\(arguments): \(output.stderr)")
      expectCleanError(output, contains: "imgcache: ")
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
      let dumped = dumps.filter { output.stderr.contains($0) || output.stdout.contains($0) }
      #expect(dumped.isEmpty, "\(arguments): \(output.stderr) \(output.stdout)")
    }
    // The system's reason, not a Foundation code; a parser error on one line, with its help.
    let notDirectory = run(["fetch", url], environment: ["IMGCACHE_DIR": file + "/cache"])
    #expect(notDirectory.stderr.contains("Not a directory"), "\(notDirectory.stderr)")
    let usage = run(["fetch", "--retry-delayy", "1s", url])
    #expect(usage.status == 2)
    #expect(
      usage.stderr == "imgcache: Unknown option '--retry-delayy' (see 'imgcache fetch --help')\n")
  }

  // MARK: - Helpers

  /// Writes the user's config file, private as it must be.
  func writeConfig(_ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: env.configFile))
    chmod(env.configFile, 0o600)
  }

  /// The type and permission bits of `path`, without following a link.
  func mode(_ path: String) -> (mode_t, Int) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return (0, -1) }
    return (info.st_mode & S_IFMT, Int(info.st_mode & 0o7777))
  }

  /// A value of `clean --json`'s `limits`.
  func limit(_ name: String, _ output: ProcessOutput) -> Double? {
    let limits = CLIEnvironment.records(output).first?["limits"] as? [String: Any]
    return (limits?[name] as? NSNumber)?.doubleValue
  }
}
