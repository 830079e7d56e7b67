import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheTransport

/// The hosts file against clocks that disagree and a file that changes under its mappings:
/// two mappings of one file stand for two processes, each given its own `now`.
@Suite("Shared hosts: wrong clocks, a truncated or replaced file, a slot handed over")
struct SharedHostsClockTests {
  let directory = TemporaryDirectory()
  var path: String { directory.url.path + "/hosts" }
  let second: Int64 = 1_000_000
  let now: Int64 = 5_000 * 1_000_000
  let day: Int64 = 86_400 * 1_000_000

  func bounds(perHost: Int64? = nil, overall: Int64? = nil) -> SharedHosts.Bounds {
    SharedHosts.Bounds(perHost: perHost, overall: overall, longestPause: 60 * second)
  }

  @Test(
    "a writer whose clock is a day or a year off holds no host for a reader",
    arguments: [86_400, 365 * 86_400, -86_400, -365 * 86_400, 3_600, -3_600])
  func wrongClock(offset: Int64) throws {
    let wrong = try #require(SharedHosts(path: path))
    let right = try #require(SharedHosts(path: path))
    let skewed = now + offset * second
    // Its rate's next start, its pause (a 2 s Retry-After), its refusal (an hour).
    #expect(
      wrong.claim("a:80", now: skewed, bounds: bounds(perHost: second, overall: second)) == .start)
    wrong.pause("b:80", until: skewed + 2 * second, now: skewed)
    wrong.refuse("c:80", until: skewed + 3_600 * second, now: skewed)
    #expect(
      right.claim("a:80", now: now, bounds: bounds(perHost: second, overall: second)) == .start)
    #expect(right.claim("b:80", now: now, bounds: bounds()) == .start)
    // A refusal is believed up to a day ahead: only an offset past a day clears it.
    let refusal = right.claim("c:80", now: now, bounds: bounds())
    if abs(offset) >= 86_400 - 3_600 {
      #expect(refusal == .start)
    } else if offset > 0 {
      #expect(refusal == .refuse(until: skewed + 3_600 * second))
    } else {
      #expect(refusal == .start, "an hour behind: the refusal is past")
    }
  }

  @Test("a rate's next start more than one interval ahead is taken again; within it, waited for")
  func rateBound() throws {
    let shared = try #require(SharedHosts(path: path))
    #expect(shared.claim("h:80", now: now, bounds: bounds(perHost: 10 * second)) == .start)
    // A reader of a faster rate judges by its own interval: ten seconds ahead is past its bound.
    #expect(shared.claim("h:80", now: now, bounds: bounds(perHost: second)) == .start)
    #expect(
      shared.claim("h:80", now: now + 1, bounds: bounds(perHost: second))
        == .wait(until: now + second))
    // The clock stepped back an hour (a process's own write, read by it after the step).
    #expect(
      shared.claim("h:80", now: now - 3_600 * second, bounds: bounds(perHost: second)) == .start)
  }

  @Test("a pause longer than the reader's cap, or than a day, is no pause")
  func pauseBound() throws {
    let shared = try #require(SharedHosts(path: path))
    shared.pause("h:80", until: now + 120 * second, now: now)
    #expect(shared.claim("h:80", now: now, bounds: bounds()) == .start)
    let patient = SharedHosts.Bounds(perHost: nil, overall: nil, longestPause: 300 * second)
    #expect(shared.claim("h:80", now: now, bounds: patient) == .paused(until: now + 120 * second))
    shared.refuse("r:80", until: now + 2 * day, now: now)
    #expect(shared.claim("r:80", now: now, bounds: bounds()) == .start)
  }

  @Test("a file truncated, shrunk or replaced under a run: no trap, and shared again after")
  func truncatedFile() throws {
    let one = try #require(SharedHosts(path: path))
    let other = try #require(SharedHosts(path: path))
    one.pause("h:80", until: now + 30 * second, now: now)
    for length in [0, 4_096, 300_000] {
      #expect(truncate(path, off_t(length)) == 0)
      // Touches every slot of the truncated part: without the guard, a SIGBUS.
      for index in 0..<2_000 {
        _ = one.claim("x\(index):80", now: now, bounds: bounds(perHost: second))
      }
      _ = other.claim("h:80", now: now, bounds: bounds())
      // Mapped again: the two share the file once more (a new table, nothing in it).
      one.pause("p\(length):80", until: now + 10 * second, now: now + 1)
      #expect(
        other.claim("p\(length):80", now: now + 2, bounds: bounds())
          == .paused(until: now + 10 * second))
    }
    // Replaced by a file renamed over it: both map the new one within a second of their clock.
    let replacement = path + ".new"
    _ = FileManager.default.createFile(atPath: replacement, contents: nil)
    #expect(rename(replacement, path) == 0)
    let later = now + 2 * second
    one.pause("q:80", until: later + 10 * second, now: later)
    #expect(
      other.claim("q:80", now: later, bounds: bounds()) == .paused(until: later + 10 * second))
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
    #expect(size == SharedHosts.size)
  }

  @Test("a time written for a host whose slot was handed over is not the new host's")
  func slotHandOver() throws {
    let shared = try #require(SharedHosts(path: path))
    let first = SharedHosts.HostKey("a.example:80")
    let home = try #require(shared.slot(of: first, now: now, claiming: true))
    // A second host whose probes start at the same slot.
    let name = try #require(
      (0..<200_000).lazy.map { "b\($0).example:80" }.first { name in
        name != "a.example:80"
          && UInt64(bitPattern: SharedHosts.HostKey(name).hash) % UInt64(SharedHosts.slots - 1)
            == UInt64(bitPattern: first.hash) % UInt64(SharedHosts.slots - 1)
      })
    let second = SharedHosts.HostKey(name)
    // The first host's times are all past: its slot is free to take.
    #expect(shared.slot(of: second, now: now, claiming: true) == home)
    // The first host's process, having found the slot before, raises its pause there now.
    shared.raise(home, .paused, key: first, to: now + 30 * self.second, now: now)
    #expect(shared.claim(name, now: now, bounds: bounds()) == .start)
    // Through the table, the first host's pause lands in a slot of its own.
    shared.pause("a.example:80", until: now + 30 * self.second, now: now)
    #expect(
      shared.claim("a.example:80", now: now, bounds: bounds())
        == .paused(until: now + 30 * self.second))
    #expect(shared.claim(name, now: now, bounds: bounds()) == .start)
  }

  @Test("a table of an earlier boot, or of another layout, is cleared by the first to map it")
  func earlierBoot() throws {
    /// Slot 0's word `index` (0: the layout's mark, 1: the boot's digest), read or written in
    /// the file itself, as another process would.
    func word(_ index: Int, set value: Int64? = nil) throws -> Int64 {
      let handle = try #require(FileHandle(forUpdatingAtPath: path))
      defer { try? handle.close() }
      try handle.seek(toOffset: UInt64(index * 8))
      if var value {
        try handle.write(contentsOf: Data(bytes: &value, count: 8))
        return value
      }
      let data = try #require(try handle.read(upToCount: 8))
      return data.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }
    for index in [1, 0] {
      let one = try #require(SharedHosts(path: path))
      one.refuse("h:80", until: now + 3_600 * second, now: now)
      #expect(one.claim("h:80", now: now, bounds: bounds()) == .refuse(until: now + 3_600 * second))
      // Another boot's digest (or another layout's mark) in slot 0.
      _ = try word(index, set: 12_345)
      let next = try #require(SharedHosts(path: path))
      #expect(next.claim("h:80", now: now, bounds: bounds()) == .start, "word \(index)")
      #expect(try word(0) == SharedHosts.layoutMark)
      #expect(try word(1) == SharedHosts.bootIdentity)
    }
  }
}
