import Foundation
import ImgCacheTestSupport
import Testing

/// A prefetch stores in a task of its own while it goes on taking responses: what waits to be
/// stored stays bounded even when the store cannot commit. The prefetch runs as a process of
/// its own (its own threads, whatever other suites keep busy), the lock is held by another process (``IndexWriteLock``).
@Suite("Prefetch stores beside its transfers", .serialized)
struct PrefetchStoreTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// The bodies in the cache's `tmp/`: each waiting to be stored has its file there.
  var waitingBodies: Int {
    DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").filter { $0.hasPrefix("part-") }
      .count
  }

  /// How many entries the index holds, read by `sqlite3` (-1 when it cannot tell).
  var entries: Int {
    let output = run(
      "/usr/bin/sqlite3", [env.cacheDirectory + "/index.sqlite", "SELECT count(*) FROM entry"])
    return Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  @Test("bodies checked while a store waits for another process's write count against the window")
  func blockedStoreHoldsTheWindow() throws {
    let tag = "held" + UUID().uuidString.prefix(6)
    // 50 ms a response, two at a time: 40 bodies a second come to be stored.
    let urls = (0..<200).map { servers.fault("/image/base.png?delay=0.05&\(tag)=\($0)") + "\n" }
    let list = try env.root.write("urls.txt", Array(urls.joined().utf8))
    let prefetch = try env.start(["prefetch", "-q", "-j", "2", "-i", list])
    defer { if prefetch.isRunning { prefetch.terminate() } }
    // Once it has stored (its index open for writing), another process takes the write lock.
    let started = Date().addingTimeInterval(30)
    while prefetch.isRunning, Date() < started, entries < 4 { usleep(50_000) }
    let lock = try IndexWriteLock(env.cacheDirectory, releasingAfter: 40)
    defer { lock.release() }
    // Until the count of waiting bodies has stood still for a second (at most 30 s: the
    // index's busy timeout is 60), then the lock goes.
    var (most, last, still) = (0, -1, 0)
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, prefetch.isRunning, still < 10 || last <= 0 {
      usleep(100_000)
      let waiting = waitingBodies
      (last, still) = (waiting, waiting == last ? still + 1 : 0)
      most = max(most, waiting)
    }
    lock.release()
    let ended = Date().addingTimeInterval(60)
    while prefetch.isRunning, Date() < ended { usleep(50_000) }
    #expect(!prefetch.isRunning, "the prefetch did not end")
    #expect(prefetch.isRunning || prefetch.terminationStatus == 0)
    // At most the window (four a slot) and one store's batch (32), however long it waited.
    #expect(most <= 4 * 2 + 32, "\(most) bodies waited in tmp/")
    #expect(most > 0, "the store never waited: the test saw nothing")
    #expect(waitingBodies == 0)
    #expect(entries == 200)
  }
}
