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

  /// Files under locks/ besides `keys`, the one lock file (no inode per key), and `hosts`,
  /// the hosts' shared politeness (one file, whatever the keys).
  private var lockFiles: [String] {
    DirectoryListing.names(atPath: env.cacheDirectory + "/locks").filter {
      $0 != "keys" && $0 != "hosts"
    }
  }

  /// The byte-range locks held on `locks/keys` now, as /proc/locks lists them.
  private var heldLocks: Int {
    var info = stat()
    guard stat(env.cacheDirectory + "/locks/keys", &info) == 0 else { return 0 }
    // Read to its end: /proc/locks reports a size of 0, and a reader that trusts the size got
    // its first page only (a machine holding many locks hid this cache's).
    let data =
      (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/locks")).readToEnd()) ?? nil
    let text = String(decoding: data ?? Data(), as: UTF8.self)
    return text.split(separator: "\n").filter {
      $0.contains("OFDLCK") && $0.contains(":\(info.st_ino) ")
    }.count
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
    #expect(lockFiles.isEmpty, "no lock file a key: \(lockFiles)")
    #expect(heldLocks == 0, "every lock released")
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
    #expect(heldLocks == 1, "the holder locked the key")
    #expect(lockFiles.isEmpty, "a byte of locks/keys, no file a key")
    // On a dispatch thread, not a task: a task needs the cooperative pool, which the full
    // suite's blocking tests can hold for a minute (this test once timed out so).
    let waiter = InBackground { [env] in env.run(["fetch", url]) }
    usleep(300_000)
    kill(holder.processIdentifier, SIGKILL)
    holder.waitUntilExit()
    let result = try #require(waiter.result(waitingAtMost: 60))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix(env.cacheDirectory + "/data/"))
    #expect(requests([path]) == [2], "the waiter downloaded it after the holder died")
    #expect(heldLocks == 0 && lockFiles.isEmpty, "nothing left: \(lockFiles)")
    #expect(env.run(["verify"]).status == 0, "nothing partial in the cache")

    // A holder killed with no one waiting leaves nothing: the kernel dropped its lock.
    let lone = Process()
    lone.executableURL = URL(fileURLWithPath: imgcacheBinary)
    lone.arguments = ["fetch", servers.fault(path + "&lone=1")]
    lone.environment = env.environment
    lone.standardOutput = FileHandle.nullDevice
    lone.standardError = FileHandle.nullDevice
    try lone.run()
    let lockDeadline = Date().addingTimeInterval(20)
    while heldLocks == 0 && Date() < lockDeadline { usleep(20_000) }
    #expect(heldLocks == 1)
    kill(lone.processIdentifier, SIGKILL)
    lone.waitUntilExit()
    #expect(heldLocks == 0 && lockFiles.isEmpty)
    // Lock files of earlier versions (one a key) that no one holds: clean removes them.
    let legacy = env.cacheDirectory + "/locks/0123456789abcdef0123456789abcdef.lock"
    #expect(FileManager.default.createFile(atPath: legacy, contents: Data()))
    #expect(env.run(["clean", "-q"]).status == 0)
    #expect(lockFiles.isEmpty, "clean swept the old lock file no one holds")
  }
}

/// The value of `task`, waited for from synchronous test code.
/// A process run on a dispatch thread, its output waited for without the cooperative pool.
private final class InBackground: Sendable {
  private let box = Outputs.Box()
  private let done = DispatchSemaphore(value: 0)

  init(_ work: @escaping @Sendable () -> ProcessOutput) {
    DispatchQueue.global().async { [box, done] in
      box.set(work())
      done.signal()
    }
  }

  /// The output, or nil when it took longer than `seconds`.
  func result(waitingAtMost seconds: Int) -> ProcessOutput? {
    done.wait(timeout: .now() + .seconds(seconds)) == .success ? box.get() : nil
  }
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
