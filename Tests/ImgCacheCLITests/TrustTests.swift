import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Issue 9: header injection, trust in policy files, and an index that survives copies,
/// losses, damage and killed processes.
@Suite("imgcache hardening: headers, policy files, the index, dead temporary files", .serialized)
struct TrustTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("CR, LF or other control characters in -H, -A, user_agent: exit 2, nothing sent")
  func headerInjection() throws {
    let id = UUID().uuidString
    let url = servers.fault("/headers?inject=\(id)")
    let policyFile = env.cacheDirectory + "/imgcache.conf"
    try FileManager.default.createDirectory(
      atPath: env.cacheDirectory, withIntermediateDirectories: true)
    let cases: [([String], [String: String], String)] = [
      (["fetch", "-H", "X-A: b\r\nHost: evil", url], [:], "header 'X-A'"),
      (["fetch", "-H", "X A: b", url], [:], "'X A: b'"),
      (["fetch", "-H", "X-A b", url], [:], "'X-A b'"),
      (["fetch", "-A", "ua\nX-Injected: 1", url], [:], "user_agent"),
      (["fetch", url], ["IMGCACHE_USER_AGENT": "ua\rX: 1"], "IMGCACHE_USER_AGENT"),
    ]
    for (arguments, variables, culprit) in cases {
      let output = env.run(arguments, environment: variables)
      #expect(output.status == 2, "\(arguments)")
      expectCleanError(output, contains: culprit)
    }
    try Data("user_agent = ua\u{7}bell\n".utf8).write(to: URL(fileURLWithPath: policyFile))
    chmod(policyFile, 0o600)
    let fromFile = env.run(["fetch", url])
    #expect(fromFile.status == 2)
    expectCleanError(fromFile, contains: policyFile + ":1")
    let sent = servers.stats()?.requests.keys.filter { $0.contains(id) } ?? []
    #expect(sent.isEmpty, "requested: \(sent)")
  }

  @Test("a policy file writable by group or others, or owned by another user, is refused")
  func policyFileTrust() throws {
    let url = servers.nginx("base.png?trust=1")
    let files = [env.cacheDirectory + "/imgcache.conf", env.configFile]
    try FileManager.default.createDirectory(
      atPath: env.cacheDirectory, withIntermediateDirectories: true)
    for file in files {
      try Data("insecure = true\n".utf8).write(to: URL(fileURLWithPath: file))
      for mode: mode_t in [0o666, 0o620, 0o602] {
        chmod(file, mode)
        let output = env.run(["fetch", url])
        #expect(output.status == 2, "\(file) mode \(String(mode, radix: 8))")
        expectCleanError(output, contains: "writable by group or others")
      }
      chmod(file, 0o644)
      let accepted = env.run(["fetch", url])
      #expect(accepted.status == 0, "\(accepted.stderr)")
      #expect(accepted.stderr.contains("insecure"), "the insecure warning: \(accepted.stderr)")
      if getuid() == 0 {
        #expect(chown(file, 65_534, 65_534) == 0)
        let foreign = env.run(["fetch", url])
        #expect(foreign.status == 2)
        expectCleanError(foreign, contains: "owned by another user")
        #expect(chown(file, 0, 0) == 0)
      }
      try FileManager.default.removeItem(atPath: file)
    }
  }

  @Test("index.sqlite alone is complete after a command; clean refuses an index that was lost")
  func indexCopiesAndLosses() throws {
    let urls = ["base.png", "base.gif", "base.jpg"].map { servers.nginx($0 + "?copy=1") }
    #expect(env.run(["prefetch", "-q"] + urls).status == 0)
    let copy = env.root.path + "/copy"
    try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: env.cacheDirectory + "/index.sqlite", toPath: copy + "/index.sqlite")
    let rows = run("/usr/bin/sqlite3", [copy + "/index.sqlite", "SELECT COUNT(*) FROM entry"])
    #expect(rows.stdout == "3\n", "a copy without its WAL: \(rows.stdout) \(rows.stderr)")

    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: env.cacheDirectory + "/index.sqlite" + suffix)
    }
    let refused = env.run(["clean", "--max-age", "0"])
    #expect(refused.status == 3)
    expectCleanError(refused, contains: "index")
    let files = try FileManager.default.subpathsOfDirectory(atPath: env.cacheDirectory + "/data")
    #expect(files.filter { $0.contains(".") }.count == 3, "bodies kept: \(files)")
  }

  @Test("a damaged index: a one-line error pointing at clear; clear moves it aside and starts over")
  func damagedIndex() throws {
    let url = servers.nginx("base.png?damaged=1")
    #expect(env.run(["fetch", url]).status == 0)
    let index = env.cacheDirectory + "/index.sqlite"
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: index))
    try handle.write(contentsOf: Data(repeating: 0x41, count: 4096))
    try handle.close()
    for arguments in [["query", url], ["fetch", url], ["size"], ["list"], ["stats"]] {
      let output = env.run(arguments)
      #expect(output.status == 3, "\(arguments): \(output.stderr)")
      expectCleanError(output, contains: "imgcache clear")
      // Issue 21, class 23: one clean line, never the message nested in itself.
      #expect(output.stderr.components(separatedBy: "is damaged").count == 2, "\(output.stderr)")
      #expect(output.stderr.components(separatedBy: "imgcache clear").count == 2)
    }
    let cleared = env.run(["clear"])
    #expect(cleared.status == 0, "\(cleared.stderr)")
    #expect(cleared.stderr.contains("moved aside"))
    let aside = try FileManager.default.contentsOfDirectory(atPath: env.cacheDirectory)
      .filter { $0.hasPrefix("index.sqlite.corrupt-") }
    #expect(aside.count == 1)
    #expect(env.run(["fetch", url]).status == 0)
    #expect(env.run(["verify"]).status == 0)
  }

  @Test(
    "temporary files of a dead process go at the next clean; a live one's stay; size shows them")
  func deadTemporaryFiles() throws {
    #expect(env.run(["fetch", servers.nginx("base.png?dead=1")]).status == 0)
    let tmp = env.cacheDirectory + "/tmp"
    // A pid that is not running (the kernel's maximum is below 2^22), and this process.
    let dead = tmp + "/part-4194303-12345-abc"
    let start = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
    let fields = start[start.index(after: try #require(start.lastIndex(of: ")")))...]
      .split(separator: " ")
    let live = tmp + "/part-\(getpid())-\(fields[19])-abc"
    for file in [dead, live] { try Data(count: 1000).write(to: URL(fileURLWithPath: file)) }
    let size = try #require(CLIEnvironment.records(env.run(["size", "--json"])).first)
    #expect(size["temporary_files"] as? Int == 2 && size["temporary_size"] as? Int == 2000)
    #expect(env.run(["clean"]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: dead))
    #expect(FileManager.default.fileExists(atPath: live))
  }
}
