import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("imgcache under signals, closed output and corrected requests", .serialized)
struct InterruptionTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// Files left in the cache's `tmp/`.
  var leftovers: [String] { DirectoryListing.names(atPath: env.cacheDirectory + "/tmp") }

  @Test("prefetch --json into a pipe closed after one line ends promptly and quietly; fetch too")
  func closedOutput() throws {
    let id = UUID().uuidString
    let urls =
      (0..<2).map { servers.nginx("base.png?pj=\(id)-\($0)") }
      + (0..<30).map { servers.fault("/image/base.png?delay=0.5&pj=\(id)-\($0)") }
    let started = Date()
    // A full run takes at least 30 x 0.5 s / 2 = 7.5 s.
    let prefetch = firstLine(["prefetch", "--json", "-j", "2"] + urls)
    let elapsed = Date().timeIntervalSince(started)
    expectNotKilled(prefetch)
    #expect(prefetch.stdout.split(separator: "\n").count == 2, "stdout: \(prefetch.stdout)")
    #expect(CLIEnvironment.records(prefetch).count == 1)
    #expect(elapsed < 5, "prefetch took \(elapsed) s; a full run takes 7.5 s")
    #expect(!prefetch.stderr.contains("Fatal error"), "stderr: \(prefetch.stderr)")
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")
    let first = try #require(CLIEnvironment.records(prefetch).first?["url"] as? String)
    #expect(env.run(["query", first]).status == 0)

    let many = (0..<10).map { servers.nginx("base.png?fj=\(id)-\($0)") }
    let fetch = firstLine(["fetch"] + many)
    expectNotKilled(fetch)
    #expect(fetch.stdout.split(separator: "\n").count == 2, "stdout: \(fetch.stdout)")
    #expect(fetch.stderr.isEmpty, "stderr: \(fetch.stderr)")
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")
  }

  @Test(
    "SIGTERM or SIGINT during fetch: exit 143 or 130 at once, tmp/ empty, nothing cached",
    arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
  func signalDuringFetch(number: Int32, status: Int32) throws {
    let id = UUID().uuidString
    // One transfer waiting for headers, one holding a partial body in tmp/.
    let paths = ["/image/base.png?delay=20&st=\(id)", "/drip?pad=300000&st=\(id)"]
    let urls = paths.map { servers.fault($0) }
    let child = try start(["fetch"] + urls)
    awaitInFlight(paths, of: child, partialBody: true)
    send(number, to: child)
    guard ends(child, within: 5) else { return }
    expectExit(child, status)
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")
    for url in urls { #expect(env.run(["query", url]).status == 1, "\(url) is cached") }
  }

  @Test("SIGTERM during prefetch: exit 143 at once, summary, tmp/ empty, --save-failed the rest")
  func terminatePrefetch() throws {
    let id = UUID().uuidString
    let paths = (0..<8).map { "/image/base.png?delay=20&pt=\(id)-\($0)" }
    let urls = paths.map { servers.fault($0) }
    let rest = env.root.path + "/rest.txt"
    let child = try start(["prefetch", "-j", "3", "--save-failed", rest] + urls)
    awaitInFlight(Array(paths.prefix(3)), of: child)
    send(SIGTERM, to: child)
    guard ends(child, within: 5) else { return }
    expectExit(child, 143)
    #expect(child.stderr.contains("interrupted"), "stderr: \(child.stderr)")
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")
    let saved = try String(contentsOfFile: rest, encoding: .utf8).split(separator: "\n")
    #expect(saved.count == 8, "--save-failed: \(saved)")
    #expect(Set(saved.map(String.init)) == Set(urls))
  }

  @Test("SIGTERM while prefetch --json is blocked on a stdout pipe nobody reads: exit 143")
  func terminateBlockedOutput() throws {
    let id = UUID().uuidString
    // About 500 bytes a record: far more than a pipe holds.
    let urls = (0..<400).map { servers.nginx("base.png?x=\(id)-\($0)") }
    let out = Pipe()
    defer { try? out.fileHandleForReading.close() }
    let child = try start(["prefetch", "--json"] + urls, stdout: out)
    let reader = out.fileHandleForReading.fileDescriptor
    #expect(readLine(reader, within: 15) != nil, "no JSON line; stderr: \(child.stderr)")
    awaitStalled(reader, child)
    send(SIGTERM, to: child)
    guard ends(child, within: 5) else { return }
    expectExit(child, 143)
    #expect(leftovers.isEmpty, "tmp/: \(leftovers)")
  }

  @Test("a corrected request is sent again, the same one is refused, a success forgets failures")
  func correctedRequests() throws {
    let id = UUID().uuidString
    let auth = servers.fault("/auth?fp=\(id)")
    #expect(env.run(["fetch", auth]).status == 6)
    #expect(env.run(["fetch", "-u", "user:wrong", auth]).status == 6)
    let signedIn = env.run(["fetch", "-u", "user:secret", auth])
    #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)")
    #expect(env.run(["fetch", auth]).status == 0)  // a hit now
    #expect(env.run(["fetch", "-u", "user:wrong", auth]).status == 0)
    #expect(try blacklisted(auth) == false)

    let tls = servers.nginxTLS("base.jpg?fp=\(id)")
    #expect(env.run(["fetch", tls]).status == 5)
    let verified = env.run(["fetch", "--cacert", servers.certificate, tls])
    #expect(verified.status == 0, "stderr: \(verified.stderr)")
    #expect(env.run(["fetch", tls]).status == 0)  // a hit now
    #expect(try blacklisted(tls) == false)

    let path = "/status/404?fp=\(id)"
    let missing = servers.fault(path)
    #expect(env.run(["fetch", missing]).status == 8)
    #expect(requests(path) == 1)
    let again = env.run(["fetch", missing])
    #expect(again.status == 11)
    expectCleanError(again, contains: "failed recently")
    #expect(requests(path) == 1)
    let fixed = env.run(["fetch", "-H", "X-Fix: 1", missing])
    #expect(fixed.status == 8, "stderr: \(fixed.stderr)")
    #expect(requests(path) == 2)
    #expect(env.run(["fetch", "-H", "X-Fix: 1", missing]).status == 11)
    #expect(requests(path) == 2)
    #expect(try blacklisted(missing) == true)
  }

  // MARK: - Helpers

  /// Runs `imgcache arguments... | head -1` in bash, imgcache killed (SIGKILL) after 20 s, then
  /// prints `status=N`, imgcache's status.
  func firstLine(_ arguments: [String]) -> ProcessOutput {
    let words = ([imgcacheBinary] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let script = "timeout -s KILL 20 \(words) | head -1; echo status=${PIPESTATUS[0]}"
    return ImgCacheTestSupport.run("/bin/bash", ["-c", script], environment: env.environment)
  }

  /// Expects the `status=N` line of ``firstLine(_:)`` to show imgcache was not killed.
  func expectNotKilled(_ output: ProcessOutput, sourceLocation: SourceLocation = #_sourceLocation) {
    let last = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
    let status = last.hasPrefix("status=") ? Int(last.dropFirst(7)) : nil
    #expect(
      status != nil && status != 137 && status != 124, "\(last); stderr: \(output.stderr)",
      sourceLocation: sourceLocation)
  }

  /// Starts `imgcache arguments...`: stdin empty, stdout to `stdout` or discarded, stderr to a
  /// file.
  func start(_ arguments: [String], stdout: Pipe? = nil) throws -> Child {
    let errorFile = env.root.path + "/stderr-\(UUID().uuidString).txt"
    #expect(FileManager.default.createFile(atPath: errorFile, contents: nil))
    let errors = try #require(FileHandle(forWritingAtPath: errorFile))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: imgcacheBinary)
    process.arguments = arguments
    process.environment = env.environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = stdout ?? FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    try? errors.close()
    return Child(process: process, errorFile: errorFile)
  }

  /// Waits (at most 10 s) until `child` has run 1.5 s, the fault server has seen each of
  /// `paths`, and, with `partialBody`, a body is being written to tmp/.
  func awaitInFlight(_ paths: [String], of child: Child, partialBody: Bool = false) {
    let deadline = Date().addingTimeInterval(10)
    while child.process.isRunning, Date() < deadline {
      let seen = servers.stats()?.requests ?? [:]
      if Date().timeIntervalSince(child.launched) >= 1.5,
        paths.allSatisfy({ seen[$0, default: 0] > 0 }), !partialBody || !leftovers.isEmpty
      {
        return
      }
      usleep(100_000)
    }
  }

  /// Waits (at most 20 s) until the pipe of `fd` holds 32 KiB nobody reads and stops growing.
  func awaitStalled(_ fd: Int32, _ child: Child) {
    let deadline = Date().addingTimeInterval(20)
    var last: Int32 = -1
    while child.process.isRunning, Date() < deadline {
      var pending: Int32 = 0
      _ = ioctl(fd, UInt(FIONREAD), &pending)
      if pending >= 32_768 && pending == last { return }
      last = pending
      usleep(300_000)
    }
  }

  /// Reads `fd` until a newline arrives, waiting at most `seconds`; nil on timeout or end.
  func readLine(_ fd: Int32, within seconds: TimeInterval) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 1024)
    while !data.contains(0x0A) {
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
      guard left > 0, poll(&ready, 1, left) > 0 else { return nil }
      let size = buffer.count
      let count = read(fd, &buffer, size)
      guard count > 0 else { return nil }
      data += buffer[0..<count]
    }
    return String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self)
  }

  /// Sends `number` to `child`, unless it already ended (its pid may be reused).
  func send(_ number: Int32, to child: Child, sourceLocation: SourceLocation = #_sourceLocation) {
    guard child.process.isRunning else {
      Issue.record(
        "ended before the signal (\(child.process.terminationStatus)): \(child.stderr)",
        sourceLocation: sourceLocation)
      return
    }
    kill(child.process.processIdentifier, number)
  }

  /// Waits at most `seconds` for `child` to end; past that, kills it (SIGKILL) and fails.
  func ends(
    _ child: Child, within seconds: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while child.process.isRunning, Date() < deadline { usleep(20_000) }
    if child.process.isRunning {
      kill(child.process.processIdentifier, SIGKILL)
      child.process.waitUntilExit()
      Issue.record(
        "still running \(seconds) s after the signal; killed. stderr: \(child.stderr)",
        sourceLocation: sourceLocation)
      return false
    }
    child.process.waitUntilExit()
    return true
  }

  /// Expects `child` to have exited (not died of a signal) with `status`, without a Swift dump.
  func expectExit(
    _ child: Child, _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let process = child.process
    #expect(
      process.terminationReason == .exit && process.terminationStatus == status,
      """
      ended by \(process.terminationReason == .exit ? "exit" : "signal") \
      \(process.terminationStatus); stderr: \(child.stderr)
      """, sourceLocation: sourceLocation)
    #expect(!child.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
  }

  /// How many requests of `path` (with its query) the fault server received.
  func requests(_ path: String) -> Int { servers.stats()?.requests[path] ?? 0 }

  /// `query --json`'s `blacklisted` for `url`.
  func blacklisted(_ url: String) throws -> Bool? {
    try #require(CLIEnvironment.records(env.run(["query", "--json", url])).first)["blacklisted"]
      as? Bool
  }

  /// A running `imgcache` whose stderr goes to a file.
  struct Child {
    let process: Process
    let errorFile: String
    let launched = Date()

    /// What it wrote to stderr so far.
    var stderr: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }
  }
}
