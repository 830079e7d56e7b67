import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheStorage

@Suite("clean: SDWebImage's deleteOldFiles, index-driven (test13, test45)")
struct CleanTests {
  let directory = TemporaryDirectory()
  let clock = TestClock()

  func makeCache() -> DiskCache { DiskCache(directory: directory.url, now: clock.function) }

  func policy(age: TimeInterval = -1, size: Int64 = 0, target: Double = 0.5, entries: Int = 0)
    -> CleanPolicy
  {
    var policy = CleanPolicy()
    policy.maxAge = age
    policy.maxSize = size
    policy.target = target
    policy.maxEntries = entries
    return policy
  }

  @Test("maxDiskAge = 1 and a wait of 1 s leaves nothing (test13); at-or-before the cutoff expires")
  func ageEquality() throws {
    let cache = makeCache()
    try store(cache, "https://a.example/a.png")
    let report0 = try cache.clean(policy: policy(age: 1))
    #expect(report0.expired.isEmpty)
    clock.advance(1)
    let report = try cache.clean(policy: policy(age: 1))
    #expect(report.expired.map(\.key) == ["https://a.example/a.png"])
    #expect(try cache.totals() == .zero)
    #expect(report.remaining == .zero)
  }

  @Test("a negative age never expires; zero expires everything, even what was just used")
  func ageExtremes() throws {
    let cache = makeCache()
    for i in 0..<3 { try store(cache, "https://a.example/\(i).png") }
    clock.advance(10 * 365 * 86_400)
    #expect(try cache.clean(policy: policy(age: -1)).expired.isEmpty)
    _ = try cache.lookup(key: "https://a.example/0.png")
    #expect(try cache.clean(policy: policy(age: 0)).expired.count == 3)
  }

  @Test("age uses the last access, not the creation: a used entry survives (LRU, #3759)")
  func ageUsesAccess() throws {
    let cache = makeCache()
    try store(cache, "https://a.example/old.png")
    try store(cache, "https://a.example/used.png")
    clock.advance(6 * 86_400)
    _ = try cache.lookup(key: "https://a.example/used.png")
    _ = try cache.lookup(key: "https://a.example/old.png", touch: false)
    clock.advance(86_400)
    let report = try cache.clean(policy: CleanPolicy())
    #expect(report.expired.map(\.key) == ["https://a.example/old.png"])
    #expect(try cache.entry(forKey: "https://a.example/used.png") != nil)
  }

  @Test("maxDiskSize = 10 removes a 20-byte file by size (test45)")
  func test45() throws {
    let cache = makeCache()
    try store(cache, "https://a.example/a.png", [UInt8](repeating: 7, count: 20))
    let report = try cache.clean(policy: policy(size: 10))
    #expect(report.trimmed.count == 1)
    #expect(try cache.totals() == .zero)
  }

  @Test("size trim: least recently used first, until strictly below target × max")
  func sizeTrim() throws {
    let cache = makeCache()
    var allocated: Int64 = 0
    for i in 0..<10 {
      allocated = try store(cache, "https://a.example/\(i).png", [UInt8](repeating: 1, count: 4096))
        .allocated
      clock.advance(1)
    }
    _ = try cache.lookup(key: "https://a.example/0.png")
    // 10 files of one block each; max = 8 blocks; target 0.5 → strictly below 4 blocks → 3 remain.
    let report = try cache.clean(policy: policy(size: 8 * allocated))
    #expect(report.trimmed.map(\.key) == (1...7).map { "https://a.example/\($0).png" })
    #expect(try cache.totals().entries == 3)
    #expect(try cache.entry(forKey: "https://a.example/0.png") != nil)
    // Not over the limit: nothing happens, even above the target.
    #expect(try cache.clean(policy: policy(size: 4 * allocated)).trimmed.isEmpty)
    // Exactly at the limit is not over it.
    #expect(try cache.clean(policy: policy(size: 3 * allocated)).trimmed.isEmpty)
    // A target of 1.0 trims just below the limit.
    #expect(try cache.clean(policy: policy(size: 3 * allocated - 1, target: 1)).trimmed.count == 1)
  }

  @Test("max entries trims the least recently used to strictly below target × max")
  func entryTrim() throws {
    let cache = makeCache()
    for i in 0..<10 {
      try store(cache, "https://a.example/\(i).png")
      clock.advance(1)
    }
    let report = try cache.clean(policy: policy(target: 0.5, entries: 8))
    #expect(report.trimmed.count == 7)
    #expect(try cache.totals().entries == 3)
  }

  @Test("dry run reports exactly what a real clean removes and changes nothing")
  func dryRun() throws {
    let cache = makeCache()
    for i in 0..<12 {
      try store(cache, "https://a.example/\(i).png", [UInt8](repeating: 1, count: 3000))
      clock.advance(3600)
    }
    let orphan = cache.layout.dataPath("ab/abababababababababababababababab.png")
    try CacheLayout.makeDirectory(cache.layout.dataFolder + "/ab")
    try Data("x".utf8).write(to: URL(fileURLWithPath: orphan))
    let before = try cache.totals()
    let p = policy(age: 8 * 3600, size: 6 * 4096)
    let plan = try cache.clean(policy: p, dryRun: true)
    #expect(plan.dryRun)
    #expect(try cache.totals() == before)
    #expect(FileIO.isFile(orphan))
    let real = try cache.clean(policy: p)
    #expect(plan.expired.map(\.key) == real.expired.map(\.key))
    #expect(plan.trimmed.map(\.key) == real.trimmed.map(\.key))
    #expect(plan.orphanFiles == real.orphanFiles)
    #expect(plan.remaining == real.remaining)
    #expect(real.expired.count == 5)  // stored at 0…4 h, cutoff 12 h − 8 h: at-or-before expires
    #expect(real.trimmed.count > 0)
    #expect(!FileIO.isFile(orphan))
  }

  @Test(
    "sweeps stale tmp files and orphans; drops rows whose file vanished; keeps fresh temporaries")
  func sweep() throws {
    let cache = makeCache()
    let kept = try store(cache, "https://a.example/kept.png")
    let lost = try store(cache, "https://a.example/lost.png")
    unlink(cache.layout.dataPath(lost.file))
    let stale = cache.layout.tmpPath + "/part-stale"
    let fresh = cache.layout.tmpPath + "/part-fresh"
    try Data("x".utf8).write(to: URL(fileURLWithPath: stale))
    try Data("x".utf8).write(to: URL(fileURLWithPath: fresh))
    var times = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
    utimensat(AT_FDCWD, stale, &times, 0)
    clock.advance(Date().timeIntervalSince(clock.now))
    let orphan = cache.layout.dataPath(
      String(kept.file.prefix(2)) + "/0123456789abcdef0123456789abcdef")
    try Data("x".utf8).write(to: URL(fileURLWithPath: orphan))
    let report = try cache.clean(policy: policy())
    #expect(report.staleTemporaries.examples == ["part-stale"])
    #expect(
      report.orphanFiles.examples == [
        String(kept.file.prefix(2)) + "/0123456789abcdef0123456789abcdef"
      ])
    #expect(report.missingFiles.examples == [lost.file])
    #expect(FileIO.isFile(fresh))
    #expect(!FileIO.isFile(orphan))
    #expect(try cache.totals().entries == 1)
    #expect(FileIO.isFile(cache.layout.dataPath(kept.file)))
  }

  @Test("a clean's report counts every orphan but keeps the first ten names (flat memory)")
  func orphansCountedNotListed() throws {
    let cache = makeCache()
    let kept = try store(cache, "https://a.example/kept.png")
    // A lost index's cache meets every file as an orphan: millions of names, were they listed.
    let folder = cache.layout.dataPath(String(kept.file.prefix(2)))
    for number in 0..<25 {
      let name = String(kept.file.prefix(2)) + String(format: "%030x", number)
      try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
    let plan = try cache.clean(policy: policy(), dryRun: true)
    let report = try cache.clean(policy: policy())
    for found in [plan, report] {
      #expect(found.orphanFiles.count == 25)
      #expect(found.orphanFiles.examples.count == CountedExamples.limit)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
  }

  @Test("a second clean while one holds the lock reports busy at once; so does clear")
  func busy() throws {
    let cache = makeCache()
    try store(cache, "https://a.example/a.png")
    let held = try #require(try FileLock(path: cache.layout.cleanLockPath))
    #expect(throws: CacheError.self) { try cache.clean(policy: CleanPolicy()) }
    do {
      _ = try cache.clean(policy: CleanPolicy())
    } catch let error as CacheError {
      #expect(error.kind == .busy)
    }
    #expect(throws: CacheError.self) { try cache.clear() }
    withExtendedLifetime(held) {}
  }
}
