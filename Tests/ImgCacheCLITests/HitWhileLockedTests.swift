import Foundation
import ImgCacheTestSupport
import Testing

/// A hit never waits for another process's write of the index (docs/design.md, Processes):
/// the uses it records wait for a later write, or are dropped when it ends, while the other
/// process (here ``IndexWriteLock``, as a long `clean` would) holds the write lock.
@Suite("Hits while another process writes", .serialized)
struct HitWhileLockedTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("a fetch hit answers and exits while another process holds the write lock")
  func fetchHit() throws {
    let url = servers.fault(servers.distinctImages(1)[0])
    let stored = env.run(["fetch", url])
    #expect(stored.status == 0)
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let hit = env.run(["fetch", url])
    #expect(lock.isHeld, "the hit waited for the write lock")
    #expect(hit.status == 0, "stderr: \(hit.stderr)")
    #expect(hit.stdout == stored.stdout)
    lock.release()
    // Its use was dropped, never the entry.
    #expect(env.run(["query", url]).stdout == stored.stdout)
  }

  @Test("a co-process answers every line while another process holds the write lock")
  func coprocess() throws {
    // More hits than wait in memory: their uses are due for a write in the background.
    let urls = servers.distinctImages(300).map { servers.fault($0) + "\n" }
    let list = try env.root.write("urls.txt", Array(urls.joined().utf8))
    #expect(env.run(["prefetch", "-q", "-i", list]).status == 0)
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let answers = env.run(["fetch", "-i", "-"], input: urls.joined())
    #expect(lock.isHeld, "the co-process waited for the write lock")
    #expect(answers.status == 0, "stderr: \(answers.stderr)")
    let paths = answers.stdout.split(separator: "\n")
    #expect(paths.count == urls.count)
    #expect(paths.allSatisfy { $0.hasPrefix(env.cacheDirectory + "/data/") })
    lock.release()
    // Once the lock is gone, a hit records its use again.
    let before = try env.counters()["hits_local"] as? Int ?? -1
    #expect(env.run(["fetch", urls[0].trimmingCharacters(in: .newlines)]).status == 0)
    #expect(try env.counters()["hits_local"] as? Int == before + 1)
  }
}

extension HitWhileLockedTests {
  @Test("a miss downloads while another process holds the write lock, and stores after it")
  func missDownloadsMeanwhile() throws {
    let warm = servers.fault(servers.distinctImages(1)[0])
    #expect(env.run(["fetch", warm]).status == 0)
    let path = servers.distinctImages(1)[0]
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let fetch = try env.start(["fetch", servers.fault(path)])
    defer { if fetch.isRunning { fetch.terminate() } }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline, servers.requests([path]) == 0 { usleep(50_000) }
    #expect(servers.requests([path]) == 1 && lock.isHeld, "the download waited for the lock")
    #expect(fetch.isRunning, "the store did not wait for the lock")
    lock.release()
    fetch.waitUntilExit()
    #expect(fetch.terminationStatus == 0)
    #expect(env.run(["query", servers.fault(path)]).status == 0)
  }
}

extension HitWhileLockedTests {
  @Test("list answers while another process holds the write lock; the uses merge after it")
  func listWhileLocked() throws {
    let urls = servers.distinctImages(2).map { servers.fault($0) }
    for url in urls { #expect(env.run(["fetch", url]).status == 0) }
    #expect(env.run(["fetch", urls[0]]).status == 0)  // a use waiting in entry_use
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let listed = env.run(["list", "--json"])
    #expect(lock.isHeld, "list waited for the write lock")
    #expect(listed.status == 0, "stderr: \(listed.stderr)")
    #expect(CLIEnvironment.records(listed).count == 2)
    lock.release()
    let merged = CLIEnvironment.records(env.run(["list", "--json"]))
    let count = merged.first { $0["url"] as? String == urls[0] }?["access_count"] as? Int
    #expect(count == 1)
  }
}

extension HitWhileLockedTests {
  @Test("a co-process that stored goes on answering, and ends, while another process writes")
  func coprocessWithPool() throws {
    let urls = servers.distinctImages(301).map { servers.fault($0) + "\n" }
    let list = try env.root.write("warm.txt", Array(urls.dropFirst().joined().utf8))
    #expect(env.run(["prefetch", "-q", "-i", list]).status == 0)
    let coprocess = try env.coprocess(["fetch", "-i", "-"])
    defer { if coprocess.process.isRunning { coprocess.process.terminate() } }
    // A miss first: stored, so this process writes through its pool from then on.
    coprocess.write(urls[0])
    let first = coprocess.output.line()
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    coprocess.write(urls.dropFirst().joined())
    let (status, rest) = try coprocess.finish()
    #expect(lock.isHeld, "the co-process waited for the write lock")
    #expect(status == 0)
    #expect(first?.isEmpty == false)
    #expect(rest.count == urls.count - 1)
  }
}

extension HitWhileLockedTests {
  @Test("a co-process that found no cache ends while another process, which made it, writes")
  func endsAfterTheCacheAppeared() throws {
    let url = servers.fault(servers.distinctImages(1)[0]) + "\n"
    let coprocess = try env.coprocess(["fetch", "--offline", "-i", "-"])
    defer { if coprocess.process.isRunning { coprocess.process.terminate() } }
    // Its lookup finds no index (counts noted, no connection open); then the cache appears.
    coprocess.write(url)
    _ = coprocess.output.line()
    #expect(env.run(["fetch", url.trimmingCharacters(in: .newlines)]).status == 0)
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let (status, _) = try coprocess.finish()
    #expect(lock.isHeld, "the co-process waited for the write lock")
    #expect(status == 1)  // its one answer: not cached
  }
}

extension HitWhileLockedTests {
  @Test("what a co-process could not write under the lock is written at exit once it is free")
  func writesAtExitOnceFree() throws {
    let urls = servers.distinctImages(300).map { servers.fault($0) + "\n" }
    let list = try env.root.write("warm.txt", Array(urls.joined().utf8))
    #expect(env.run(["prefetch", "-q", "-i", list]).status == 0)
    let before = try env.counters()["hits_local"] as? Int ?? -1
    let lock = try IndexWriteLock(env.cacheDirectory)
    defer { lock.release() }
    let coprocess = try env.coprocess(["fetch", "-i", "-"])
    defer { if coprocess.process.isRunning { coprocess.process.terminate() } }
    // Its uses fall due at the 256th hit; that write fails under the lock (200 ms).
    coprocess.write(urls.joined())
    for _ in urls { _ = coprocess.output.line() }
    usleep(300_000)
    // Within the second before its next try, the lock goes and the co-process ends.
    lock.release()
    #expect(try coprocess.finish().status == 0)
    #expect(try env.counters()["hits_local"] as? Int == before + urls.count)
  }
}
