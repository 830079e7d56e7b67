import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("imgcache prefetch, remove, clean, size, clear", .serialized)
struct CacheCommandTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  func fill(_ names: [String]) {
    for name in names { #expect(env.run(["fetch", servers.nginx(name)]).status == 0) }
  }

  @Test(
    "prefetch -i: comments and blanks skipped, duplicates once, summary on stderr, nothing on stdout"
  )
  func prefetchList() throws {
    let list = env.root.path + "/urls.txt"
    let lines = [
      "# images", "", servers.nginx("base.jpg"), "  " + servers.nginx("base.gif") + "  ",
      servers.nginx("base.jpg"), servers.fault("/status/404?p=1"),
    ]
    try lines.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
    let output = env.run(["prefetch", "-i", list, "--save-failed", env.root.path + "/failed.txt"])
    #expect(output.status == 8)
    #expect(output.stdout.isEmpty)
    #expect(output.stderr.contains("prefetch: 4 URLs"))
    #expect(output.stderr.contains("2 downloaded"))
    #expect(output.stderr.contains("1 failed"))
    #expect(output.stderr.contains("1 duplicates"))
    #expect(output.stderr.contains("404") && output.stderr.contains("/status/404?p=1"))
    let failed = try String(contentsOfFile: env.root.path + "/failed.txt", encoding: .utf8)
    #expect(failed.contains(servers.fault("/status/404?p=1") + "\n"))
    #expect(!failed.contains("base.jpg"))
    let warm = env.run(["prefetch", "-q", servers.nginx("base.jpg"), servers.nginx("base.gif")])
    #expect(warm.status == 0 && warm.stderr.isEmpty)
  }

  @Test(
    "prefetch from stdin with --json: one parsed record per URL, -j, --order and --max-per-host accepted"
  )
  func prefetchJSON() throws {
    let input = [servers.nginx("base.png"), servers.nginx("base.bmp"), servers.fault("/html?pj=1")]
      .joined(separator: "\n")
    let output = env.run(
      ["prefetch", "--json", "-j", "2", "--order", "lifo", "--max-per-host", "1", "-i", "-"],
      input: input)
    #expect(output.status == 9)
    let records = CLIEnvironment.records(output)
    #expect(records.count == 3)
    let byURL = Dictionary(
      uniqueKeysWithValues: records.compactMap { r in (r["url"] as? String).map { ($0, r) } })
    #expect(byURL[servers.nginx("base.bmp")]?["format"] as? String == "bmp")
    #expect(byURL[servers.nginx("base.bmp")]?["status"] as? String == "downloaded")
    #expect(byURL[servers.fault("/html?pj=1")]?["exit_code"] as? Int == 9)
    #expect(env.run(["prefetch", "-j", "0", servers.nginx("base.png")]).status == 2)
    #expect(env.run(["prefetch", "--order", "random", servers.nginx("base.png")]).status == 2)
  }

  @Test("prefetch: an unreadable list is a usage error naming it")
  func unreadableList() {
    let output = env.run(["prefetch", "-i", env.root.path + "/nope.txt"])
    #expect(output.status == 2)
    expectCleanError(output, contains: "nope.txt")
  }

  @Test("Ctrl-C during prefetch: stops at once, summary, exit 130, nothing partial, rerun resumes")
  func interrupt() throws {
    let urls =
      [servers.nginx("base.png")]
      + (0..<8).map { servers.fault("/image/base.png?delay=20&int=\($0)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: imgcacheBinary)
    process.arguments =
      ["prefetch", "-j", "3", "--save-failed", env.root.path + "/rest.txt"] + urls
    process.environment = env.environment
    let err = Pipe()
    process.standardError = err
    try process.run()
    sleep(2)
    kill(process.processIdentifier, SIGINT)
    let started = Date()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(Date().timeIntervalSince(started) < 5)
    #expect(process.terminationStatus == 130)
    #expect(stderr.contains("interrupted"))
    #expect(DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").isEmpty)
    #expect(env.run(["query", servers.nginx("base.png")]).status == 0)
    let rest = try String(contentsOfFile: env.root.path + "/rest.txt", encoding: .utf8)
    #expect(rest.split(separator: "\n").count == 8)
  }

  @Test("peak memory of a large-file prefetch stays flat (bodies stream to disk)")
  func memory() throws {
    let chunk = [UInt8](repeating: 0x42, count: 1_048_576)
    var big = Fixtures.bytes("base.jpg")
    for _ in 0..<40 { big += chunk }
    let names = try (0..<3).map { try servers.serve("large-\($0).jpg", big) }
    let urls = names.map { servers.nginx($0) }
    let script = """
      import resource, subprocess, sys
      r = subprocess.run(sys.argv[1:])
      print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
      """
    let output = ImgCacheTestSupport.run(
      "/usr/bin/env",
      ["python3", "-c", script, imgcacheBinary, "prefetch", "-q", "--max-filesize", "200M"] + urls,
      environment: env.environment)
    let fields = output.stdout.split(separator: " ").compactMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    #expect(fields.first == 0, "\(output.stderr)")
    let peakKiB = fields.last ?? Int.max
    // 120 MiB went through; a process holding bodies in memory would peak far above this.
    #expect(peakKiB < 64 * 1024, "peak RSS \(peakKiB) KiB")
    print("large-file prefetch: 3 x 40 MiB, peak RSS \(peakKiB / 1024) MiB (debug build)")
  }

  @Test("remove: prints removed URLs; absent is exit 1 unless -f; --dry-run changes nothing; -i")
  func remove() throws {
    fill(["base.png", "base.gif"])
    let dry = env.run(["remove", "--dry-run", servers.nginx("base.png")])
    #expect(dry.stdout == "would remove \(servers.nginx("base.png"))\n")
    #expect(env.run(["query", servers.nginx("base.png")]).status == 0)
    #expect(
      env.run(["remove", servers.nginx("base.png")]).stdout
        == "removed \(servers.nginx("base.png"))\n")
    #expect(env.run(["query", servers.nginx("base.png")]).status == 1)
    let absent = env.run(["remove", servers.nginx("base.png")])
    #expect(absent.status == 1)
    expectCleanError(absent, contains: "not cached")
    #expect(env.run(["remove", "-f", servers.nginx("base.png")]).status == 0)
    try (servers.nginx("base.gif") + "\n").write(
      toFile: env.root.path + "/rm.txt", atomically: true, encoding: .utf8)
    #expect(env.run(["remove", "-i", env.root.path + "/rm.txt"]).status == 0)
    #expect(env.run(["size", "--bytes"]).stdout == "0\n")
  }

  @Test("size: text, --bytes and --json agree with the files")
  func size() throws {
    fill(["base.png", "base.jpg"])
    let bytes = Fixtures.bytes("base.png").count + Fixtures.bytes("base.jpg").count
    #expect(env.run(["size", "--bytes"]).stdout == "\(bytes)\n")
    #expect(env.run(["size"]).stdout.hasPrefix("2 entries, "))
    let record = try #require(CLIEnvironment.records(env.run(["size", "--json"])).first)
    #expect(record["entries"] as? Int == 2)
    #expect(record["size"] as? Int == bytes)
    #expect((record["disk_size"] as? Int ?? 0) >= bytes)
  }

  @Test("clean: dry run changes nothing; --max-size trims; --max-age 0 expires all; json report")
  func clean() throws {
    fill(["base.png", "base.jpg", "base.gif", "lossy.webp"])
    let dry = env.run(["clean", "--dry-run", "--max-age", "0s"])
    #expect(dry.status == 0)
    #expect(dry.stdout.contains("expired:  4 entries"))
    #expect(dry.stdout.contains("[dry run]"))
    #expect(env.run(["size"]).stdout.hasPrefix("4 entries"))
    let trim = try #require(
      CLIEnvironment.records(env.run(["clean", "--json", "--max-size", "12K"])).first)
    #expect((trim["trimmed"] as? [String: Any])?["count"] as? Int == 3)
    #expect((trim["remaining"] as? [String: Any])?["entries"] as? Int == 1)
    #expect(env.run(["clean", "--max-age", "0s"]).stdout.contains("expired:  1 entries"))
    #expect(env.run(["clean", "--max-size", "lots"]).status == 2)
    let quiet = env.run(["clean", "-q"])
    #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
  }

  @Test("clean and clear exit 10 while another clean holds the lock")
  func busy() throws {
    fill(["base.png"])
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    holder.arguments = [env.cacheDirectory + "/clean.lock", "sleep", "5"]
    try holder.run()
    usleep(300_000)
    let clean = env.run(["clean"])
    #expect(clean.status == 10)
    expectCleanError(clean, contains: "another clean")
    #expect(env.run(["clear"]).status == 10)
    holder.terminate()
    holder.waitUntilExit()
    #expect(env.run(["clean"]).status == 0)
  }

  @Test("clear: everything, --dry-run, --failed only the failed list")
  func clear() {
    fill(["base.png", "base.jpg"])
    _ = env.run(["fetch", servers.fault("/status/404?c=1")])
    #expect(env.run(["clear", "--dry-run"]).stdout.contains("would remove 2 entries"))
    #expect(env.run(["clear", "--failed"]).stdout == "removed 1 failed URLs\n")
    #expect(env.run(["size"]).stdout.hasPrefix("2 entries"))
    #expect(env.run(["clear"]).stdout.hasPrefix("removed 2 entries"))
    #expect(env.run(["size", "--bytes"]).stdout == "0\n")
  }

  @Test("a cache directory that cannot be created is a local I/O error (3) and loses nothing")
  func localIO() throws {
    let blocker = env.root.path + "/file"
    try "x".write(toFile: blocker, atomically: true, encoding: .utf8)
    let output = env.run(["--dir", blocker + "/cache", "fetch", servers.nginx("base.png")])
    #expect(output.status == 3)
    expectCleanError(output, contains: blocker)
  }
}

extension DirectoryListing {
  static func names(atPath path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }
}

/// The listing helper of the tests (ImgCacheKit's is internal).
enum DirectoryListing {}
