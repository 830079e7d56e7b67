import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheUntrusted

/// The boundary for values from outside (docs/design.md, "Untrusted input"): each class of
/// issue 21 that a parser decides, checked value by value.
@Suite("Untrusted input: checked numbers, HTTP dates, header lines, RFC 9111 parsing")
struct UntrustedInputTests {
  let received = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

  @Test("class 1: a date with a 12-digit year, or any absurd field, is no date — never a trap")
  func absurdDates() {
    for text in [
      "Sun, 06 Nov 999999999999 08:49:37 GMT", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
      "Sun, 99999999999999999999 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 99999999999999999999:49:37 GMT",
      "Sunday, 06-Nov-999999999999 08:49:37 GMT", "Sun Nov  6 08:49:37 999999999999",
      "Sun Nov 99999999999999999999 08:49:37 1994",
    ] {
      #expect(HTTPDate.parse(text) == nil, "\(text)")
    }
    #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") != nil, "the last four-digit year")
  }

  @Test("class 18: only the three RFC 9110 forms, exactly; anything else is expired")
  func strictDates() {
    for bad in [
      "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 94 08:49:37 GMT",
      "Sun 06 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT",
      "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
      "Sun, 6 Nov 1994 08:49:37 GMT", "sun, 06 nov 1994 08:49:37 gmt",
      "Sun, 06 Nov 1994 08:49:37 GMT ", " Sun, 06 Nov 1994 08:49:37 GMT",
      "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
      "Sunday, 06 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT",
      "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 94",
    ] {
      #expect(HTTPDate.parse(bad) == nil, "\(bad)")
      let verdict = FreshnessPolicy().verdict(
        ResponseFreshness(expires: bad, date: "Sun, 06 Nov 1994 08:49:37 GMT", received: received),
        lastModified: nil, stored: received, at: received)
      #expect(!verdict.isFresh, "an invalid Expires means already expired: \(bad)")
    }
    // RFC 850's two-digit year: the most recent one not more than 50 years ahead.
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026
    #expect(
      HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: now)?.timeIntervalSince1970
        == 315_532_800, "80 is 1980: 2080 is more than 50 years ahead")
    #expect(
      HTTPDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now: now)?.timeIntervalSince1970
        == 3_155_760_000, "70 is 2070")
  }

  @Test(
    "class 5: every header name is parsed, whatever its length; control characters refuse a line")
  func headerLines() {
    func parse(_ text: String) -> HeaderLine? {
      Array(text.utf8).withUnsafeBytes { HeaderLine.parse($0) }
    }
    #expect(
      parse("Content-Encoding: gzip\r\n") == HeaderLine(name: "content-encoding", value: "gzip"))
    let long = String(repeating: "X", count: 300)
    #expect(parse("\(long): 1\r\n")?.name == long.lowercased())
    #expect(parse("ETag: \"a\u{0}b\"\r\n") == nil)
    #expect(parse("Bad Name: x\r\n") == nil)
    #expect(parse(": x\r\n") == nil)
    #expect(parse("Age:\t 5 \r\n") == HeaderLine(name: "age", value: "5"))
  }

  @Test("a kept header is matched without case before any string is made, as the full parse")
  func keptHeaderLines() {
    let names = HeaderLine.Names(["content-type", "etag", "age"])
    func parse(_ bytes: [UInt8]) -> (kept: HeaderLine?, full: HeaderLine?) {
      bytes.withUnsafeBytes { (HeaderLine.parse($0, keeping: names), HeaderLine.parse($0)) }
    }
    #expect(
      parse(Array("CONTENT-Type: image/png\r\n".utf8)).kept
        == HeaderLine(name: "content-type", value: "image/png"))
    #expect(parse(Array("Server: nginx\r\n".utf8)).kept == nil, "not kept")
    #expect(parse(Array("ETags: x\r\n".utf8)).kept == nil, "a longer name")
    #expect(parse(Array("Age: 1\u{7F}\r\n".utf8)).kept == nil, "a control character")
    // Random lines over an alphabet of near misses: the two parsers always agree.
    let alphabet = Array("aAeEgGtT-_:; \t\r\n\u{0}\u{7F}@`~^".utf8) + [0xC3, 0xA9]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let length = Int.random(in: 0..<12, using: &generator)
      var line = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
      if Bool.random(using: &generator) { line = Array("Age:".utf8) + line }
      let (kept, full) = parse(line)
      #expect(kept == (["content-type", "etag", "age"].contains(full?.name) ? full : nil))
    }
  }

  @Test("class 19: Age is delta-seconds; a list counts its first member; 7200.0 is ignored")
  func ages() {
    #expect(HTTPFields.age("7200, 0") == 7200)
    #expect(HTTPFields.age("7200.0") == nil)
    #expect(HTTPFields.age("-5") == nil)
    #expect(HTTPFields.age("1e3") == nil)
    #expect(HTTPFields.age("99999999999999999999999") == 2_147_483_648)
    let listed = ResponseFreshness(cacheControl: "max-age=3600", age: "7200, 0", received: received)
    #expect(
      !FreshnessPolicy().verdict(listed, lastModified: nil, stored: received, at: received).isFresh,
      "the origin says it is already stale")
  }

  @Test("class 20: of duplicated directives the first counts; an invalid max-age is stale")
  func duplicatedDirectives() {
    #expect(CacheDirectives("max-age=60, max-age=99999").maxAge == 60)
    #expect(CacheDirectives("max-age=abc").maxAge == 0)
    #expect(CacheDirectives("max-age=\"60\"").maxAge == 60)
    #expect(CacheDirectives("max-age=60.5").maxAge == 0)
    #expect(CacheDirectives("max-age=1e300").maxAge == 0)
    #expect(CacheDirectives("stale-if-error=inf").staleIfError == nil)
  }

  @Test("class 21: a heuristic lifetime only for heuristically cacheable statuses (not 201/202)")
  func heuristicStatuses() {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    let modified = "Thu, 27 Oct 1994 08:49:37 GMT"  // ten days earlier: one day heuristic
    for (status, fresh) in [(200, true), (nil, true), (203, true), (201, false), (202, false)] {
      let freshness = ResponseFreshness(date: date, received: received, status: status)
      let verdict = FreshnessPolicy().verdict(
        freshness, lastModified: modified, stored: received, at: received.addingTimeInterval(60))
      #expect(verdict.isFresh == fresh, "status \(String(describing: status))")
    }
  }

  @Test("class 22: must-understand stores understood statuses despite no-store, never others")
  func mustUnderstand() {
    let directives = CacheDirectives("must-understand, no-store")
    #expect(directives.allowsStoring(status: 200))
    #expect(!directives.allowsStoring(status: 202))
    #expect(!CacheDirectives("no-store").allowsStoring(status: 200))
    #expect(CacheDirectives("max-age=5").allowsStoring(status: 201))
  }

  @Test("class 4: Content-Range is parsed whole; anything inconsistent is nil")
  func contentRanges() {
    #expect(ContentRange("bytes 100-199/200") == ContentRange(first: 100, last: 199, complete: 200))
    #expect(ContentRange("bytes 100-199/*") == ContentRange(first: 100, last: 199, complete: nil))
    for bad in [
      "bytes 100-199/150", "bytes 200-100/300", "bytes -1-5/10", "bytes 1-5", "items 1-5/10",
      "bytes 1-99999999999999999999/5", "bytes 1 -5/10", "bytes 0-0/0",
    ] {
      #expect(ContentRange(bad) == nil, "\(bad)")
    }
  }

  @Test("class 2: an SVG sized 1e300, inf or nan has unknown dimensions, never a trap")
  func absurdSVG() {
    for value in ["1e300", "inf", "nan", "-inf", "1e9", "-5"] {
      for svg in [
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(value) \(value)\"></svg>",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(value)\" height=\"\(value)\"></svg>",
      ] {
        let info = ImageSniffer.sniff(data: Array(svg.utf8))
        #expect(info?.format == .svg, "\(svg)")
        #expect(info?.width == nil && info?.height == nil, "\(svg)")
      }
    }
    let plain = "<svg viewBox=\"0 0 12.4 30\"></svg>"
    #expect(ImageSniffer.sniff(data: Array(plain.utf8))?.width == 12)
  }

  @Test("fuzz findings: inputs that once trapped are refused (kept as regressions)")
  func fuzzFindings() {
    // An attribute `|=` (no name, no value) indexed an empty split: found by imgcache-fuzz.
    for text in ["s3://buc1t/pion3://buc1t/p|=", "redis://127.0.0.1|=", "redis://127.0.0.1|=x"] {
      #expect(!Boundary.feed(.remoteStorage, Array(text.utf8)), "\(text)")
      #expect(throws: CacheError.self) { try RemoteSpec.parseList(text) }
    }
  }

  @Test("checked conversions: NaN, infinities and huge values are nil, never a trap")
  func checkedNumbers() {
    for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 9.3e18] {
      #expect(Checked.int(value) == nil)
    }
    #expect(Checked.int(12.9) == 12)
    #expect(Checked.digits("9223372036854775807") == Int64.max)
    #expect(Checked.digits("9223372036854775808") == nil)
    #expect(Checked.digits("+1") == nil && Checked.digits("") == nil && Checked.digits("1 ") == nil)
    #expect(Checked.total([Int64.max, 1]) == nil)
    #expect(Checked.milliseconds(.infinity) == 1 && Checked.milliseconds(1e300) == 2_147_483_647)
  }
}

/// Class 27: the download loop only hands over "a partial started"; the record is written
/// elsewhere, so a `clean` holding the write lock never stalls the transfers of a process.
@Suite("Partial records: written off the download loop's thread")
struct PartialRecordTests {
  let directory = TemporaryDirectory()

  @Test("recordPartial returns while another process holds the write lock; written after")
  func recordedOffTheLoop() throws {
    let cache = DiskCache(directory: directory.url)
    try store(cache, "https://a.example/seed.png")
    cache.index.close()
    let holder = try DatabaseQueue(path: cache.layout.indexPath)
    let key = "https://a.example/big.bin"
    try holder.writeWithoutTransaction { db in
      try db.execute(sql: "BEGIN EXCLUSIVE")
      // On the loop's thread this must not wait for the lock (60 s of busy timeout).
      cache.recordPartial(url: key, key: key, validator: "\"v1\"", contentLength: 5_000_000)
      try db.execute(sql: "COMMIT")
    }
    cache.flushPartialRecords()
    #expect(try cache.index.partial(forKey: key)?.validator == "\"v1\"")
  }

  @Test("records handed over are written before the index closes: none after, no WAL left")
  func writtenBeforeClose() throws {
    let cache = DiskCache(directory: directory.url)
    try store(cache, "https://a.example/seed.png")
    let keys = (0..<20).map { "https://a.example/part-\($0).bin" }
    for key in keys {
      cache.recordPartial(url: key, key: key, validator: "\"v\"", contentLength: 9_000_000)
    }
    cache.discardPartial(key: keys[0])
    cache.close()
    // Whatever was still queued runs now: a record written after close would reopen the index.
    cache.flushPartialRecords()
    let wal = cache.layout.indexPath + "-wal"
    #expect(!FileManager.default.fileExists(atPath: wal), "the index stays closed")
    let count = try DatabaseQueue(path: cache.layout.indexPath).read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM partial_download")
    }
    #expect(count == 19, "every record written, the discarded one deleted, in order")
  }
}

/// The fuzz target of the boundary, for a few seconds in every test run (`make fuzz` runs it
/// longer): random and mutated HTTP dates, Cache-Control, Age, Content-Range, header lines,
/// remote trailers, config lines, remote_storage values and SVG tags; no trap, no hang.
@Suite("Fuzzing the untrusted-input boundary")
struct BoundaryFuzzTests {
  @Test("every boundary parser survives a few seconds of random and mutated input")
  func fuzz() throws {
    let tool = productsDirectory.appendingPathComponent("imgcache-fuzz").path
    let output = run(tool, ["4"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("no trap, no hang"), "\(output.stdout)")
  }

  @Test("the seeds of every target are valid inputs (the fuzzer mutates from there)")
  func seedsParse() {
    for target in Boundary.Target.allCases {
      for seed in Boundary.seeds(target) where target != .cacheControl {
        #expect(Boundary.feed(target, Array(seed.utf8)), "\(target): \(seed)")
      }
    }
  }
}
