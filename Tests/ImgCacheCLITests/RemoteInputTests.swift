import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Remote settings are untrusted input: bounded where they are parsed, in every way they can
/// be given, and a password never reaches an output or the index.
@Suite("imgcache remote tier: hostile settings and secrets", .serialized)
struct RemoteInputTests {
  let machine = CLIEnvironment()
  let servers = TestServers.shared

  @Test(
    "absurd timeouts and ports are refused by --remote, the variable and config set; no trap",
    arguments: [
      "redis://127.0.0.1:6379|connect-timeout=inf", "redis://127.0.0.1:6379|operation-timeout=nan",
      "redis://127.0.0.1:6379|operation-timeout=1e300", "redis://127.0.0.1:99999999999",
      "http://127.0.0.1:99999999999/cache", "redis://127.0.0.1:*|shards=1,99999999999",
    ])
  func hostileSettings(value: String) throws {
    let url = servers.fault(servers.distinctImages(1)[0])
    let fetch = machine.run(["fetch", "--remote", value, url])
    #expect(fetch.status == 2, "\(fetch.stderr)")
    expectCleanError(fetch, contains: "remote storage backend 1")
    #expect(fetch.stderr.contains("(in --remote)") && !fetch.stderr.contains("--remote-storage"))
    let variable = machine.run(["size"], environment: ["IMGCACHE_REMOTE_STORAGE": value])
    #expect(variable.status == 2)
    expectCleanError(variable, contains: "IMGCACHE_REMOTE_STORAGE")
    let set = machine.run(["config", "set", "remote_storage", value])
    #expect(set.status == 2, "\(set.stderr)")
    expectCleanError(set, contains: "remote storage backend 1")
    #expect(machine.run(["config", "get", "remote_storage"]).status == 0, "nothing was written")
  }

  @Test("an S3 listing whose sizes overflow: remote status reports the count, bytes unknown")
  func overflowingListing() throws {
    let s3 = HostileRemote("s3-listing")
    let output = machine.run([
      "remote", "status", "--json", "--remote",
      "s3://images|endpoint=http://127.0.0.1:\(s3.port)|access-key=k|secret-key=s",
    ])
    #expect(output.status == 0, "\(output.stderr)")
    let record = try #require(CLIEnvironment.records(output).first)
    #expect(record["reachable"] as? Bool == true && record["objects"] as? Int == 3, "\(record)")
    #expect(record["bytes"] is NSNull, "\(record)")
  }

  @Test("passwords with | space # ? @: refused raw, accepted encoded, never in any output")
  func passwords() throws {
    // One password holding every reserved character: "Qx" and "Zk" must appear nowhere.
    let password = "Qx|1 2#3?4@5/Zk"
    let encoded = "Qx%7C1%202%233%3F4%405%2FZk"
    let redis = RemoteStores(redis: 1, password: password)
    let port = redis.redis[0].port
    let url = servers.fault(servers.distinctImages(1)[0])
    var outputs = [String]()
    func expectNoSecret(
      _ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      #expect(
        !text.contains("Qx") && !text.contains("Zk"), "\(what): \(text)",
        sourceLocation: sourceLocation)
    }
    for user in ["", "me"] {
      let raw = "redis://\(user):\(password)@127.0.0.1:\(port)"
      for arguments in [
        ["fetch", "--remote", raw, url], ["remote", "status", "--remote", raw],
        ["config", "set", "remote_storage", raw],
      ] {
        let output = machine.run(arguments)
        #expect(output.status == 2, "\(arguments[0]): \(output.stderr)")
        if arguments[0] != "config" {
          #expect(output.stderr.contains("percent-encoded"), "\(output.stderr)")
        }
        outputs += [output.stdout, output.stderr]
      }
      let environment = ["IMGCACHE_REMOTE_STORAGE": raw]
      for arguments in [["stats", "--json"], ["config"], ["config", "get", "remote_storage"]] {
        let output = machine.run(arguments, environment: environment)
        outputs += [output.stdout, output.stderr]
      }
    }
    // Percent-encoded, it works, and is shown as ***.
    let good = "redis://\(encoded)@127.0.0.1:\(port)"
    let fetched = machine.run(["fetch", "--remote", good, url])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(redis.redisCLI(0, ["DBSIZE"], password: password) == "1", "written back")
    let status = machine.run(["remote", "status", "--remote", good])
    #expect(
      status.status == 0 && status.stdout.contains("redis://***@127.0.0.1:\(port): reachable"))
    let stats = machine.run(["stats", "--json"])
    #expect(stats.stdout.contains("redis://***@127.0.0.1:\(port)"), "\(stats.stdout)")
    #expect(machine.run(["config", "set", "remote_storage", good]).status == 0)
    let shown = machine.run(["config"])
    #expect(shown.stdout.contains("redis://***@127.0.0.1:\(port)"), "\(shown.stdout)")
    // A wrong password, so that errors and warnings are printed too.
    let wrong = machine.run(["fetch", "--remote", "redis://Qx%23Zk@127.0.0.1:\(port)", url + "&w"])
    #expect(wrong.status == 0 && wrong.stderr.contains("authentication refused"))
    outputs += [fetched.stdout, fetched.stderr, status.stdout, status.stderr, stats.stdout]
    outputs += [shown.stdout, shown.stderr, wrong.stdout, wrong.stderr]
    outputs.append(machine.run(["stats"]).stdout)
    for (index, output) in outputs.enumerated() { expectNoSecret(output, "output \(index)") }
    // Nor in the index (its counters are named by the label). Its SHA-256s and digests are
    // random bytes, where two letters turn up by chance (a run in about twenty found "Zk"):
    // five-byte pieces of the password, raw and encoded, are looked for there.
    let pieces = ["Qx|1 ", "Qx%7C", "@5/Zk", "%2FZk", "Qx#Zk", "Qx%23"]
    for file in ["index.sqlite", "index.sqlite-wal"] {
      let path = machine.cacheDirectory + "/" + file
      guard let bytes = FileManager.default.contents(atPath: path) else { continue }
      for piece in pieces {
        #expect(bytes.range(of: Data(piece.utf8)) == nil, "\(file) holds \(piece)")
      }
    }
  }

  @Test("--remote and -u passwords are blanked in /proc/PID/cmdline for the run, and still used")
  func blankedInCommandLine() throws {
    let redis = RemoteStores(redis: 1, password: "argv-Secret9")
    let port = redis.redis[0].port
    for form in ["--remote", "--remote="] {
      let url = servers.fault(servers.distinctImages(1)[0] + "&delay=2")
      let value = "redis://:argv-Secret9@127.0.0.1:\(port)|operation-timeout=5s"
      let arguments = form == "--remote" ? [form, value] : [form + value]
      let process = try machine.start(["fetch"] + arguments + [url])
      // Read while the fetch waits for the slow origin (2 s).
      usleep(800_000)
      let file = "/proc/\(process.processIdentifier)/cmdline"
      let cmdline = String(
        decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
      #expect(process.isRunning && cmdline.contains("fetch"), "still running: \(cmdline)")
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(!cmdline.contains("argv-Secret9") && cmdline.contains("redis://*************@127"))
    }
    // -u's password too (a download with credentials is private: not in the remote tier).
    let url = servers.fault(servers.distinctImages(1)[0] + "&delay=2")
    let process = try machine.start(["fetch", "-u", "alice:user-Secret7", url])
    usleep(800_000)
    let cmdline = String(
      decoding: FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/cmdline")
        ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(!cmdline.contains("user-Secret7") && cmdline.contains("alice:************"))
    #expect(redis.redisCLI(0, ["DBSIZE"], password: "argv-Secret9") == "2", "the password worked")
  }
}
