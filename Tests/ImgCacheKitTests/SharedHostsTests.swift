import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheTransport

/// The hosts file every process of a cache maps: two mappings of one file stand for two
/// processes. Times are given, never read, except where two threads race for a rate.
@Suite("Shared hosts: pauses and rates across processes")
struct SharedHostsTests {
  let directory = TemporaryDirectory()
  var path: String { directory.url.path + "/hosts" }
  let second: Int64 = 1_000_000
  let now: Int64 = 1_800_000_000 * 1_000_000
  /// Bounds of a reader with no rates and the default cap (a minute).
  var plain: SharedHosts.Bounds { bounds() }

  func bounds(perHost: Int64? = nil, overall: Int64? = nil, cap: Int64 = 60) -> SharedHosts.Bounds {
    SharedHosts.Bounds(perHost: perHost, overall: overall, longestPause: cap * second)
  }

  @Test("a pause or a refusal one process sets holds for another, for its host alone")
  func pauseAcrossProcesses() throws {
    let one = try #require(SharedHosts(path: path))
    let other = try #require(SharedHosts(path: path))
    one.pause("img.example:443", until: now + 5 * second, now: now)
    #expect(
      other.claim("img.example:443", now: now, bounds: plain)
        == .paused(until: now + 5 * second))
    #expect(other.claim("cdn.example:443", now: now, bounds: plain) == .start)
    #expect(
      other.claim("img.example:443", now: now + 5 * second, bounds: plain) == .start)
    // A shorter pause never shortens a longer one.
    other.pause("img.example:443", until: now + 9 * second, now: now)
    one.pause("img.example:443", until: now + 2 * second, now: now)
    #expect(
      one.claim("img.example:443", now: now, bounds: plain)
        == .paused(until: now + 9 * second))
    other.refuse("slow.example:80", until: now + 3_600 * second, now: now)
    #expect(
      one.claim("slow.example:80", now: now, bounds: plain)
        == .refuse(until: now + 3_600 * second))
    // A reader whose cap is longer waits for it instead.
    #expect(
      one.claim("slow.example:80", now: now, bounds: bounds(cap: 7_200))
        == .paused(until: now + 3_600 * second))
  }

  @Test("a rate's starts are taken once across processes: never two within an interval")
  func rateAcrossProcesses() throws {
    let mappings = try [#require(SharedHosts(path: path)), #require(SharedHosts(path: path))]
    let interval: Int64 = 2_000  // 500 a second
    let starts = Mutex<[Int64]>([])
    // Two threads, each its own mapping, claim as fast as they can for a fifth of a second.
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      let end = SharedHosts.now() + 200_000
      while true {
        let time = SharedHosts.now()
        guard time < end else { break }
        let claim = mappings[index].claim("h:80", now: time, bounds: bounds(perHost: interval))
        if claim == .start { starts.withLock { $0.append(time) } }
      }
    }
    let times = starts.withLock { $0 }.sorted()
    // Some starts at least (how many depends on the machine's load: the threads spin).
    #expect(times.count >= 10, "\(times.count) starts")
    for (earlier, later) in zip(times, times.dropFirst()) {
      #expect(later - earlier >= interval, "\(later - earlier) ns apart")
    }
    // The overall rate holds across hosts.
    let shared = mappings[0]
    #expect(shared.claim("a:80", now: now, bounds: bounds(overall: second)) == .start)
    #expect(
      shared.claim("b:80", now: now + 1, bounds: bounds(overall: second))
        == .wait(until: now + second))
    #expect(shared.claim("b:80", now: now + second, bounds: bounds(overall: second)) == .start)
  }

  @Test("processes that open a new hosts file at once clear it once: no claim made is wiped")
  func newFileClearedOnce() throws {
    // Eight threads, each its own mapping of a new file, as eight processes starting at once
    // (two `fetch`es of one cache in a shell): each claims its own host's rate as soon as its
    // mapping is set up. A mapping that cleared the table after another's claim (it saw the
    // file unmarked, then cleared when the first had marked and claimed) let that host's next
    // start go again at once: its second claim below would start instead of waiting.
    let hosts = (0..<8).map { "host-\($0).example:80" }
    let rate = bounds(perHost: 3_600 * second)
    for round in 0..<50 {
      let file = directory.url.path + "/hosts-\(round)"
      let claims = Mutex<[SharedHosts.Claim]>([])
      let mappings = Mutex<[SharedHosts]>([])
      DispatchQueue.concurrentPerform(iterations: hosts.count) { index in
        guard let mapping = SharedHosts(path: file) else { return }
        let claim = mapping.claim(hosts[index], now: now, bounds: rate)
        claims.withLock { $0.append(claim) }
        mappings.withLock { $0.append(mapping) }
      }
      #expect(claims.withLock { $0 } == Array(repeating: .start, count: hosts.count))
      let check = try #require(SharedHosts(path: file))
      for host in hosts {
        let again = check.claim(host, now: now + second, bounds: rate)
        #expect(again == .wait(until: now + 3_600 * second), "round \(round), \(host)")
      }
    }
  }

  @Test("a damaged hosts file never traps and never pauses a host for long")
  func damagedFile() throws {
    for fill in [UInt8(0xFF), 0x7F, 0x00, 0x5A] {
      _ = FileManager.default.createFile(
        atPath: path, contents: Data(repeating: fill, count: 512 * 1024))
      let shared = try #require(SharedHosts(path: path))
      for host in (0..<200).map({ "h\($0).example:443" }) {
        #expect(shared.claim(host, now: now, bounds: bounds(perHost: second)) == .start, "\(fill)")
        shared.pause(host, until: now + 3 * second, now: now)
        #expect(
          shared.claim(host, now: now + second, bounds: plain)
            == .paused(until: now + 3 * second))
        #expect(shared.claim(host, now: now + 3 * second, bounds: plain) == .start)
      }
    }
    // A short file is grown; a directory or a link is refused.
    _ = FileManager.default.createFile(atPath: path, contents: Data(count: 10))
    #expect(SharedHosts(path: path) != nil)
    #expect(SharedHosts(path: directory.url.path) == nil)
    try FileManager.default.createSymbolicLink(atPath: path + ".link", withDestinationPath: path)
    #expect(SharedHosts(path: path + ".link") == nil)
  }
}
