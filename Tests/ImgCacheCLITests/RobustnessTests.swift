import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// The hardening classes of lost work, hangs, bad input and error reporting, one test each;
/// the input and output classes are in RobustnessInputTests.swift. Every wait is bounded: a
/// build without the fixes (`IMGCACHE_TEST_BINARY`) that hangs is killed and fails.
@Suite("imgcache hardening: lost work, hangs, bad input, errors", .serialized)
struct RobustnessTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// Files left in the cache's `tmp/`.
  var leftovers: [String] { DirectoryListing.names(atPath: env.cacheDirectory + "/tmp") }

  @Test(
    "class 6: an interrupted prefetch lists every URL it did not cache in --save-failed",
    arguments: [SIGINT, SIGTERM, 0])  // 0: stdout is a pipe nobody reads
  func interruptedPrefetchKeepsEveryURL(interruption: Int32) throws {
    let id = UUID().uuidString
    let hit = servers.nginx("base.gif?rk=\(id)")
    #expect(env.run(["fetch", hit]).status == 0)
    let fast = (0..<4).map { servers.nginx("base.png?rk=\(id)-\($0)") }
    let drip = "/drip?pad=300000&rk=\(id)"
    let slow = (0..<292).map { "/image/base.png?delay=20&rk=\(id)-\($0)" }
    // Done (3 fast, a 404), in flight (drip, 3 slow), queued, resolved but not started (the
    // first batch is 256 lines), and unread (the rest); a hit, a duplicate.
    var urls = [fast[0], fast[1], servers.fault("/status/404?rk=\(id)"), fast[2]]
    urls += [servers.fault(drip)] + slow.map { servers.fault($0) }
    urls.insert(hit, at: 100)
    urls.insert(fast[3], at: 270)
    urls.insert(urls[60], at: 290)
    #expect(urls.count == 300)
    let list = try env.root.write("urls.txt", Array(urls.map { $0 + "\n" }.joined().utf8))
    let saved = env.root.path + "/saved.txt"
    let arguments = ["prefetch", "--json", "-j", "4", "-i", list, "--save-failed", saved]
    if interruption == 0 {
      let pipe = Pipe()
      try pipe.fileHandleForReading.close()
      let child = try launch(arguments, stdout: pipe.fileHandleForWriting)
      try? pipe.fileHandleForWriting.close()
      guard child.wait(within: 15) else { return }
      expectNoCrash(child)
    } else {
      let child = try launch(arguments)
      let inFlight = [drip] + slow.prefix(3)
      let ready = waitUntil(seconds: 15, while: child) {
        child.stdout.split(separator: "\n").count >= 4 && requested(inFlight) && !leftovers.isEmpty
      }
      #expect(ready, "not 4 results and 4 transfers in flight; stderr: \(child.stderr)")
      send(interruption, to: child)
      guard child.wait(within: 10) else { return }
      expectExit(child, 128 + interruption)
    }
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")

    let text = (try? String(contentsOfFile: saved, encoding: .utf8)) ?? ""
    let listed = Set(text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") })
    var unique = [String]()
    for url in urls where !unique.contains(url) { unique.append(url) }
    let records = CLIEnvironment.records(env.run(["query", "--json"] + unique))
    #expect(records.count == unique.count)
    let cached = Set(
      records.filter { $0["cached"] as? Bool == true }.compactMap { $0["url"] as? String })
    let done = interruption == 0 ? [hit] : [hit] + fast.prefix(3)
    #expect(cached.isSuperset(of: done), "cached: \(cached)")
    let lost = unique.filter { !cached.contains($0) && !listed.contains($0) }
    #expect(lost.isEmpty, "\(lost.count) URLs neither cached nor saved, e.g. \(lost.prefix(3))")
    let needless = listed.intersection(cached)
    #expect(needless.isEmpty, "cached but saved for a rerun: \(needless)")
    #expect(listed.isSubset(of: Set(unique)), "saved: \(listed.subtracting(unique))")
  }

  @Test("class 7: a URL starts as soon as its line arrives on stdin; SIGINT works while waiting")
  func streamingInput() throws {
    let url = servers.nginx("base.png?si=\(UUID().uuidString)")
    let child = try launch(["prefetch", "-i", "-"], stdin: .pipe)
    defer { try? child.input?.fileHandleForWriting.close() }
    if child.isRunning { child.input?.fileHandleForWriting.write(Data((url + "\n").utf8)) }
    let cached = waitUntil(seconds: 10, while: child) { env.run(["query", url]).status == 0 }
    #expect(cached, "not cached within 10 s while stdin stays open; stderr: \(child.stderr)")
    #expect(child.isRunning, "prefetch ended although stdin is still open: \(child.stderr)")
    send(SIGINT, to: child)
    guard child.wait(within: 5) else { return }
    expectExit(child, 130)
  }

  @Test("class 8: a line over 64 KiB is exit 2 naming its number, at once; 64 KiB is fine")
  func unboundedInput() throws {
    // Under 1 GiB of address space: a reader that buffers /dev/zero fails instead of eating
    // the machine's memory.
    let zero = run(
      ["-q", "prefetch", "-i", "/dev/zero"], shell: "ulimit -v 1048576; exec \"$@\"", within: 10)
    #expect(zero.status == 2)
    #expect(zero.stderr.split(separator: "\n").count == 1, "stderr: \(zero.stderr)")
    expectCleanError(zero, contains: "64 KiB")
    #expect(zero.stderr.contains("line 1 "), "stderr: \(zero.stderr)")

    let host = "http://127.0.0.1:9/"
    let long = host + String(repeating: "a", count: 70 * 1024)
    let lines = [servers.nginx("base.png"), "# a comment", long, servers.nginx("base.jpg")]
    let file = try env.root.write("long.txt", Array(lines.map { $0 + "\n" }.joined().utf8))
    let third = run(["-q", "prefetch", "--offline", "-i", file])
    #expect(third.status == 2)
    expectCleanError(third, contains: "64 KiB")
    #expect(third.stderr.contains("line 3 "), "stderr: \(third.stderr)")

    // Exactly 64 KiB, and one byte less, without a final newline: offline misses (exit 1).
    let limit = 65_536
    let edge = [limit, limit - 1].map { host + String(repeating: "b", count: $0 - host.count) }
    let fine = try env.root.write("edge.txt", Array((edge[0] + "\n" + edge[1]).utf8))
    let accepted = run(["--json", "prefetch", "--offline", "-i", fine])
    #expect(accepted.status == 1, "stderr: \(accepted.stderr.prefix(300))")
    #expect(!accepted.stderr.contains("KiB"), "stderr: \(accepted.stderr.prefix(300))")
    let statuses = CLIEnvironment.records(accepted).compactMap { $0["status"] as? String }
    #expect(statuses == ["offline_miss", "offline_miss"])
    let over = host + String(repeating: "c", count: limit + 1 - host.count)
    let overFile = try env.root.write("over.txt", Array((over + "\n").utf8))
    let refused = run(["-q", "prefetch", "--offline", "-i", overFile])
    #expect(refused.status == 2)
    expectCleanError(refused, contains: "64 KiB")
    #expect(refused.stderr.contains("line 1 "), "stderr: \(refused.stderr)")
  }

  @Test("class 16: --timeout is an idle timeout: a slow but steady body succeeds")
  func idleTimeout() {
    // A byte every 1.5 s for 10.5 s: under a 3 s idle timeout, far over 3 s in all (a low-speed
    // limit of 1 byte/s over 3 s, the old meaning, fails it at about 9 s).
    let path = "/trickle?n=7&every=1.5&it=\(UUID().uuidString)"
    let output = run(["fetch", "--retry", "0", "--timeout", "3s", servers.fault(path)], within: 30)
    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(requests(path) == 1)
  }

  @Test("class 17: huge headers, a huge header line, bad chunking: exit 7, one request each")
  func malformedResponses() {
    let id = UUID().uuidString
    for path in ["/huge-headers", "/huge-header-line", "/bad-chunked"].map({ "\($0)?mr=\(id)" }) {
      let output = run(["fetch", "--retry", "2", servers.fault(path)], within: 30)
      #expect(output.status == 7, "\(path): \(output.stderr)")
      expectCleanError(output, contains: "bad response")
      #expect(requests(path) == 1, "\(path) was retried")
    }
  }
}

// MARK: - Helpers
extension RobustnessTests {
  /// Starts `program arguments...` with the environment's variables (and `extra`).
  func launch(
    _ arguments: [String], program: String = imgcacheBinary,
    environment extra: [String: String] = [:],
    stdin: Launched.Input = .null, stdout: FileHandle? = nil
  ) throws -> Launched {
    try Launched(
      program, arguments, environment: env.environment.merging(extra) { $1 },
      directory: env.root.path, stdin: stdin, stdout: stdout)
  }

  /// Runs `imgcache arguments...` (through `/bin/sh -c shell`, which gets the binary and the
  /// arguments as `$@`, when given) to its end under `timeout`, which kills it (status 137)
  /// after `seconds`; a hang, a crash (132–139) or a Swift runtime error is a failure.
  func run(
    _ arguments: [String], shell: String? = nil, environment extra: [String: String] = [:],
    within seconds: Int = 20, sourceLocation: SourceLocation = #_sourceLocation
  ) -> ProcessOutput {
    let command = shell.map { ["/bin/sh", "-c", $0, "sh", imgcacheBinary] } ?? [imgcacheBinary]
    let output = ImgCacheTestSupport.run(
      "/usr/bin/timeout", ["-s", "KILL", "\(seconds)"] + command + arguments,
      environment: env.environment.merging(extra) { $1 })
    #expect(
      output.status != 137,
      "still running after \(seconds) s; killed. \(output.stderr.prefix(2000))",
      sourceLocation: sourceLocation)
    #expect(
      !(132...139).contains(output.status) && !output.stderr.contains("Fatal error"),
      "crashed (\(output.status)): \(output.stderr.prefix(2000))", sourceLocation: sourceLocation)
    return output
  }

  /// Polls `condition` every 100 ms for at most `seconds` while `child` runs.
  func waitUntil(seconds: TimeInterval, while child: Launched, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while child.isRunning, Date() < deadline {
      if condition() { return true }
      usleep(100_000)
    }
    return condition()
  }

  /// Whether the fault server has seen each of `paths`.
  func requested(_ paths: [String]) -> Bool {
    let seen = servers.stats()?.requests ?? [:]
    return paths.allSatisfy { seen[$0, default: 0] > 0 }
  }

  /// How many requests of `path` (with its query) the fault server received.
  func requests(_ path: String) -> Int { servers.stats()?.requests[path] ?? 0 }

  /// Sends `number` to `child`, unless it already ended (its pid may be reused).
  func send(_ number: Int32, to child: Launched, sourceLocation: SourceLocation = #_sourceLocation)
  {
    guard child.isRunning else {
      Issue.record("ended before the signal: \(child.stderr)", sourceLocation: sourceLocation)
      return
    }
    kill(child.process.processIdentifier, number)
  }

  /// Expects `child` to have exited with `status`, without a Swift dump.
  func expectExit(
    _ child: Launched, _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    expectNoCrash(child, sourceLocation: sourceLocation)
    #expect(
      child.process.terminationStatus == status, "stderr: \(child.stderr)",
      sourceLocation: sourceLocation)
  }

  /// Expects `child` to have exited (not died of a signal, not 132–139) without a Swift dump.
  func expectNoCrash(_ child: Launched, sourceLocation: SourceLocation = #_sourceLocation) {
    let status = child.process.terminationStatus
    let exited = child.process.terminationReason == .exit
    #expect(
      exited && !(132...139).contains(status),
      "\(exited ? "exit" : "signal") \(status); stderr: \(child.stderr)",
      sourceLocation: sourceLocation)
    #expect(!child.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
  }
}

/// A started process: stdin a pipe, a file or /dev/null; stdout (unless given) and stderr to
/// files, so it never blocks on a pipe nobody reads.
final class Launched: @unchecked Sendable {
  enum Input {
    case null
    case pipe
  }

  let process = Process()
  let input: Pipe?
  let outputFile: String
  let errorFile: String

  init(
    _ program: String, _ arguments: [String], environment: [String: String], directory: String,
    stdin: Input, stdout: FileHandle?
  ) throws {
    let stem = directory + "/launched-\(UUID().uuidString)"
    outputFile = stem + ".out"
    errorFile = stem + ".err"
    _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
    _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
    defer {
      try? out.close()
      try? err.close()
    }
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = stdout ?? out
    process.standardError = err
    switch stdin {
    case .null:
      input = nil
      process.standardInput = FileHandle.nullDevice
    case .pipe:
      let pipe = Pipe()
      input = pipe
      process.standardInput = pipe
    }
    try process.run()
  }

  var isRunning: Bool { process.isRunning }
  var stdout: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }
  var stderr: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

  /// Waits at most `seconds` for the end; past that, kills it (SIGKILL) and fails.
  func wait(within seconds: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation)
    -> Bool
  {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      Issue.record(
        "still running after \(seconds) s; killed. stderr: \(stderr.prefix(2000))",
        sourceLocation: sourceLocation)
      return false
    }
    process.waitUntilExit()
    return true
  }
}
