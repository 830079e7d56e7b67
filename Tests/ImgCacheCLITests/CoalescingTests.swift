import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// One request per URL at the origin, whatever the number of processes (`xargs -P`, GNU
/// parallel, several cron jobs), and never a stale lock.
@Suite("imgcache across processes: one download per URL", .serialized)
struct CoalescingTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  private func requests(_ paths: [String]) -> [Int] {
    let seen = servers.stats()?.requests ?? [:]
    return paths.map { seen[$0] ?? 0 }
  }

  private var lockFiles: [String] {
    DirectoryListing.names(atPath: env.cacheDirectory + "/locks")
  }

  @Test("16 processes × the same 50 URLs, shuffled, at once: 50 requests, every answer right")
  func sixteenProcesses() throws {
    let id = UUID().uuidString.prefix(8)
    let paths = (0..<50).map { "/image/base.png?co=\(id)-\($0)&delay=0.2" }
    let urls = paths.map { servers.fault($0) }
    let outputs = Outputs()
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      let order = urls.shuffled()
      let result = env.run(["fetch"] + order)
      outputs.append(order, result)
    }
    #expect(requests(paths) == Array(repeating: 1, count: 50), "one request per URL")
    let answers = try #require(outputs.values.count == 16 ? outputs.values : nil)
    let expected = Dictionary(
      uniqueKeysWithValues: urls.map {
        ($0, env.run(["query", $0]).stdout.trimmingCharacters(in: .newlines))
      })
    for (order, result) in answers {
      #expect(result.status == 0, "\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines == order.map { expected[$0] ?? "?" })
    }
    #expect(lockFiles.isEmpty, "no lock file left: \(lockFiles)")
    let stats = CLIEnvironment.records(env.run(["stats", "--json"])).first
    let counters = stats?["counters"] as? [String: Int] ?? [:]
    #expect(counters["downloads"] == 50)
    #expect(counters["lookups"] == 800)
    #expect(
      (counters["hits_local"] ?? 0) + (counters["misses"] ?? 0) == 800
        && counters["misses"] == 50 + (counters["waited_for_process"] ?? 0))
  }

  @Test("the lock holder killed with SIGKILL mid-download: a waiter takes over, nothing left")
  func holderKilled() throws {
    let path = "/image/base.png?killed=\(UUID().uuidString.prefix(8))&delay=3"
    let url = servers.fault(path)
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: imgcacheBinary)
    holder.arguments = ["fetch", url]
    holder.environment = env.environment
    holder.standardOutput = FileHandle.nullDevice
    holder.standardError = FileHandle.nullDevice
    try holder.run()
    let deadline = Date().addingTimeInterval(20)
    while requests([path]) == [0] && Date() < deadline { usleep(20_000) }
    #expect(lockFiles.count == 1, "the holder locked the key")
    let waiter = Task.detached { [env] in env.run(["fetch", url]) }
    usleep(300_000)
    kill(holder.processIdentifier, SIGKILL)
    holder.waitUntilExit()
    let result = try #require(try awaitResult(waiter))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix(env.cacheDirectory + "/data/"))
    #expect(requests([path]) == [2], "the waiter downloaded it after the holder died")
    #expect(lockFiles.isEmpty, "no lock file left: \(lockFiles)")
    #expect(env.run(["verify"]).status == 0, "nothing partial in the cache")

    // A holder killed with no one waiting leaves its lock file; clean removes it.
    let lone = Process()
    lone.executableURL = URL(fileURLWithPath: imgcacheBinary)
    lone.arguments = ["fetch", servers.fault(path + "&lone=1")]
    lone.environment = env.environment
    lone.standardOutput = FileHandle.nullDevice
    lone.standardError = FileHandle.nullDevice
    try lone.run()
    let lockDeadline = Date().addingTimeInterval(20)
    while lockFiles.isEmpty && Date() < lockDeadline { usleep(20_000) }
    kill(lone.processIdentifier, SIGKILL)
    lone.waitUntilExit()
    #expect(lockFiles.count == 1)
    #expect(env.run(["clean", "-q"]).status == 0)
    #expect(lockFiles.isEmpty, "clean swept the lock file no one holds")
  }
}

/// The value of `task`, waited for from synchronous test code.
private func awaitResult(_ task: Task<ProcessOutput, Never>) throws -> ProcessOutput? {
  let box = Outputs.Box()
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    box.set(await task.value)
    done.signal()
  }
  return done.wait(timeout: .now() + 60) == .success ? box.get() : nil
}

/// Results collected from concurrent runs.
private final class Outputs: @unchecked Sendable {
  private let lock = NSLock()
  private var collected = [([String], ProcessOutput)]()
  var values: [([String], ProcessOutput)] { lock.withLock { collected } }
  func append(_ order: [String], _ output: ProcessOutput) {
    lock.withLock { collected.append((order, output)) }
  }

  final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var value: ProcessOutput?
    func set(_ output: ProcessOutput) { lock.withLock { value = output } }
    func get() -> ProcessOutput? { lock.withLock { value } }
  }
}
