import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Synchronization
import Testing

/// The built `imgcache` binary, next to the test runner (or `IMGCACHE_TEST_BINARY`, to check
/// that a test fails against another build).
let imgcacheBinary: String = {
  if let binary = ProcessInfo.processInfo.environment["IMGCACHE_TEST_BINARY"] { return binary }
  var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  while url.path != "/"
    && !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("imgcache").path)
  {
    url = url.deletingLastPathComponent()
  }
  return url.appendingPathComponent("imgcache").path
}()

/// A cache directory, a home and a config home of its own, and a runner for the binary.
final class CLIEnvironment: @unchecked Sendable {
  let root = TemporaryDirectory("imgcache-cli")
  var cacheDirectory: String { root.path + "/cache" }
  var configFile: String { root.path + "/config/imgcache/config" }
  var environment: [String: String]

  init() {
    environment = [
      "PATH": "/usr/bin:/bin", "HOME": root.path + "/home",
      "XDG_CONFIG_HOME": root.path + "/config",
      "IMGCACHE_DIR": root.path + "/cache", "LC_ALL": "C",
    ]
    for sub in ["/config/imgcache", "/home"] {
      try? FileManager.default.createDirectory(
        atPath: root.path + sub, withIntermediateDirectories: true)
    }
  }

  /// Runs `imgcache arguments...`.
  @discardableResult
  func run(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil)
    -> ProcessOutput
  {
    ImgCacheTestSupport.run(
      imgcacheBinary, arguments, environment: environment.merging(extra) { $1 }, input: input)
  }

  /// Starts `imgcache arguments...` without waiting (to interrupt it, or to act meanwhile).
  func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: imgcacheBinary)
    process.arguments = arguments
    process.environment = environment.merging(extra) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// The counters of `stats --json`.
  func counters() throws -> [String: Any] {
    let stats = try #require(CLIEnvironment.records(run(["stats", "--json"])).first)
    return try #require(stats["counters"] as? [String: Any])
  }

  /// Parses each stdout line as a JSON object.
  static func records(_ output: ProcessOutput) -> [[String: Any]] {
    output.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }
}

/// Asserts the shape every failure message has: one line, `imgcache: ...`, no Swift dump.
func expectCleanError(
  _ output: ProcessOutput, contains fragment: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let lines = output.stderr.split(separator: "\n")
  #expect(
    lines.first?.hasPrefix("imgcache: ") == true, "stderr: \(output.stderr)",
    sourceLocation: sourceLocation)
  #expect(
    output.stderr.contains(fragment), "stderr: \(output.stderr)", sourceLocation: sourceLocation)
  #expect(
    !output.stderr.contains("Fatal error") && !output.stderr.contains(/ImgCache\w*\./),
    sourceLocation: sourceLocation)
}

extension TestServers {
  /// `count` distinct image paths on the fault server, which counts requests by path.
  func distinctImages(_ count: Int) -> [String] {
    let run = UUID().uuidString.prefix(8)
    return (0..<count).map { "/image/base.png?r=\(run)&n=\($0)" }
  }

  /// How many requests the fault server had for `paths`.
  func requests(_ paths: [String]) -> Int {
    let counts = stats()?.requests ?? [:]
    return paths.reduce(0) { $0 + (counts[$1] ?? 0) }
  }
}

/// Another process holding the write lock of a cache's index: Python's `sqlite3` in an
/// IMMEDIATE transaction, from when the initializer returns until ``release()``, or `seconds`
/// at most (so that a test which waits for it still ends, and fails).
final class IndexWriteLock: @unchecked Sendable {
  private let holder = Process()
  private let commands = Pipe()
  private let released = Mutex(false)

  init(_ cacheDirectory: String, releasingAfter seconds: Double = 20) throws {
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    holder.arguments = [
      "python3", "-c",
      """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1], timeout=20, isolation_level=None)
      db.execute("BEGIN IMMEDIATE")
      print("held", flush=True)
      sys.stdin.read()
      db.execute("ROLLBACK")
      """,
      cacheDirectory + "/index.sqlite",
    ]
    let output = Pipe()
    holder.standardInput = commands
    holder.standardOutput = output
    try holder.run()
    let line = LineReader(output.fileHandleForReading).line()
    try #require(line == "held", "the lock was not taken")
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.release() }
  }

  /// Whether the lock is still held (not yet released, by a call or by the time limit).
  var isHeld: Bool { !released.withLock { $0 } }

  /// Ends the transaction and the holder (once; later calls return at once).
  func release() {
    let first = released.withLock { released in
      defer { released = true }
      return !released
    }
    guard first else { return }
    try? commands.fileHandleForWriting.close()
    holder.waitUntilExit()
  }
}

/// Lines from a pipe, read as they come.
final class LineReader {
  private let handle: FileHandle
  private var buffer = Data()

  init(_ handle: FileHandle) { self.handle = handle }

  /// The next line, or nil at the end.
  func line() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        return line
      }
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      buffer += chunk
    }
  }
}

/// A running `imgcache` co-process, under `timeout -s KILL 60` (a hung one still ends): its
/// stdin, and its stdout a line at a time.
struct Coprocess {
  let process: Process
  let input: FileHandle
  let output: LineReader

  /// Writes `text` to its stdin.
  func write(_ text: String) { input.write(Data(text.utf8)) }

  /// Closes its stdin, reads what it still prints, and waits for it to end.
  func finish() throws -> (status: Int32, lines: [String]) {
    try input.close()
    var lines = [String]()
    while let line = output.line() { lines.append(line) }
    process.waitUntilExit()
    return (process.terminationStatus, lines)
  }
}

extension CLIEnvironment {
  /// Starts `imgcache arguments...` as a co-process (``Coprocess``).
  func coprocess(_ arguments: [String]) throws -> Coprocess {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-s", "KILL", "60", imgcacheBinary] + arguments
    process.environment = environment
    let (input, output) = (Pipe(), Pipe())
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    return Coprocess(
      process: process, input: input.fileHandleForWriting,
      output: LineReader(output.fileHandleForReading))
  }
}
