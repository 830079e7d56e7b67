import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCacheStorage

/// Schema v9 (docs/design.md, On disk): entries found by their key's MD5, fields the row can
/// give back not written twice (`StoredForm`), and an index of v8 rewritten in that form.
@Suite("The lean index: stored forms, the size of an entry, the v8 to v9 migration")
struct LeanIndexTests {
  let directory = TemporaryDirectory()

  /// Writes `value` through a real table and reads it back as a row.
  private func roundTrip(_ value: SQLiteValue) throws -> SQLiteRow {
    let db = try SQLiteConnection(path: ":memory:", busyTimeout: 1)
    try db.execute(sql: "CREATE TABLE t (v)")
    try db.execute(sql: "INSERT INTO t VALUES (?)", [value])
    return try #require(try db.firstRow("SELECT v FROM t"))
  }

  @Test("each stored form gives back exactly what was written, derivable or not")
  func storedForms() throws {
    let key = "https://a.example/p/img.png?x=1"
    let digest = KeyDigest(key: key)
    let own = CacheLayout.relativeFile(for: key)
    #expect(StoredForm.url(key, key: key) == .null)
    #expect(StoredForm.url(stored: nil, key: key) == key)
    #expect(StoredForm.url(key + "#f", key: key) == (key + "#f").sqliteValue)
    let stem = String(own.prefix(35))
    for (file, stored) in [
      (own, "png"), (stem + ".webp", "webp"), (stem, ""), ("zz/elsewhere.png", "zz/elsewhere.png"),
      (stem + "x", stem + "x"), (stem + ".", stem + "."), (stem + "./a", stem + "./a"),
    ] {
      #expect(StoredForm.file(file, digest: digest) == stored, "\(file)")
      #expect(StoredForm.file(stored: stored, digest: digest) == file, "\(file)")
    }
    for (type, format, stored) in [
      ("image/png", "png", SQLiteValue.null), (nil, "png", "".sqliteValue),
      ("image/jpg", "png", "image/jpg".sqliteValue), (nil, nil, .null),
      ("text/html", nil, "text/html".sqliteValue),
    ] as [(String?, String?, SQLiteValue)] {
      #expect(StoredForm.contentType(type, format: format) == stored)
      let read = String(sqliteValue: stored)
      #expect(StoredForm.contentType(stored: read, format: format) == type)
    }
    let canonical = "Sun, 06 Nov 1994 08:49:37 GMT"
    for text in [
      canonical, "Mon, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994", "0", "", "Wed, 31 Dec 2025 23:59:60 GMT",
      "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
    ] {
      let stored = StoredForm.httpDate(text)
      let isNumber = if case .integer = stored { true } else { false }
      #expect(
        isNumber
          == [canonical, "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"].contains(
            text), "\(text)")
      #expect(try StoredForm.httpDate(stored: try roundTrip(stored), at: 0) == text, "\(text)")
    }
    let sha = String(repeating: "0f", count: 32)
    for (hex, bytes) in [(sha, true), (sha.uppercased(), false), ("0f0f", false)] {
      let stored = StoredForm.sha256(hex)
      #expect((stored == Data(repeating: 0x0f, count: 32).sqliteValue) == bytes)
      #expect(try StoredForm.sha256(stored: try roundTrip(stored), at: 0) == hex)
    }
    let halves = try #require(
      try SQLiteConnection(path: ":memory:", busyTimeout: 1).firstRow(
        "SELECT ?, ?", [StoredForm.digest(digest), StoredForm.digestLow(digest)]))
    #expect(try StoredForm.digest(stored: halves, at: 0) == digest)
    #expect(digest.hex.hasPrefix(String(UInt64(bitPattern: digest.high), radix: 16).leftPadded))
    #expect(
      KeyDigest(hex: digest.hex) == digest && KeyDigest(hex: digest.hex.uppercased()) == digest)
    #expect(KeyDigest(hex: "0f") == nil && KeyDigest(hex: String(repeating: "g", count: 32)) == nil)
  }

  @Test("IMF-fixdates written from seconds: known days, both sides of 1970, and back")
  func imfFixdates() {
    #expect(HTTPDate.imfFixdate(seconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    #expect(HTTPDate.imfFixdate(seconds: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
    #expect(HTTPDate.imfFixdate(seconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.imfFixdate(seconds: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    #expect(HTTPDate.imfFixdate(seconds: 253_402_300_800) == nil)
    #expect(HTTPDate.imfFixdate(seconds: -62_135_596_801) == nil)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let seconds = Int64.random(in: -62_135_596_800..<253_402_300_800, using: &generator)
      let text = HTTPDate.imfFixdate(seconds: seconds)
      #expect(text.flatMap(HTTPDate.canonicalSeconds(of:)) == seconds, "\(seconds)")
    }
  }

  @Test("an entry of the benchmark's kind takes at most 260 bytes of index (it took 494 in v8)")
  func bytesPerEntry() throws {
    let cache = DiskCache(directory: directory.url)
    let count = 20_000
    var metadata = EntryMetadata(
      format: .png, width: 37, height: 21, contentType: "image/png", etag: "\"6b0951f9-1ae\"",
      lastModified: "Fri, 27 Nov 2026 09:48:41 GMT",
      sha256: String(repeating: "2078cf2a", count: 8),
      freshness: ResponseFreshness(
        date: "Fri, 27 Nov 2026 09:48:46 GMT",
        received: Date(timeIntervalSince1970: 1_795_772_926.88), status: 200))
    metadata.shareable = true
    try cache.index.transaction { tx in
      var batch = try tx.storeBatch(counting: (.downloads, .bytesDownloaded))
      for index in 0..<count {
        let key = "http://127.0.0.1:43369/one.png?n=\(index)"
        let entry = CacheEntry(
          key: key, url: key, file: CacheLayout.relativeFile(for: key), size: 430,
          allocated: 4096, metadata: metadata,
          at: Date(timeIntervalSince1970: 1_795_772_926.895 + Double(index) / 1000))
        _ = try batch.store(entry, link: nil)
      }
      try batch.finish()
    }
    cache.index.close()
    let bytes = try DatabaseQueue(path: cache.layout.indexPath).read { db in
      try Int.fetchOne(
        db,
        sql: """
          SELECT SUM(pgsize) FROM dbstat WHERE name = 'entry'
          OR name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'entry')
          """) ?? 0
    }
    print("index bytes an entry: \(bytes / count)")
    #expect(bytes / count <= 260, "\(bytes / count) bytes an entry")
  }

  @Test("a v8 index becomes v9: every field, use, link and total kept, found by digest")
  func migration() throws {
    let layout = CacheLayout(root: directory.url)
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    let (a, b, variant) = (
      "https://a.example/a.png", "https://a.example/b", "https://a.example/a.png#w=10"
    )
    let sha = String(repeating: "5e", count: 32)
    let variantFile = String(CacheLayout.relativeFile(for: variant).prefix(35)) + ".webp"
    let queue = try DatabaseQueue(path: layout.indexPath)
    try queue.writeWithoutTransaction { db in
      try IndexSchema.migrator.migrate(
        try SQLiteConnection(borrowing: #require(db.sqliteConnection), path: "index"), upTo: "v8")
    }
    try queue.write { db in
      let insert = """
        INSERT INTO entry (key, url, file, size, allocated, format, width, height, scale,
        content_type, etag, last_modified, created, last_access, access_count, sha256, date,
        received, status, shareable) VALUES (?, ?, ?, ?, 4096, ?, 1, 2, 1, ?, ?, ?, ?, ?, ?, ?,
        ?, 5.5, 200, 1)
        """
      let rows: [[DatabaseValueConvertible?]] = [
        [
          a, a, CacheLayout.relativeFile(for: a), 10, "png", "image/png", "\"e\"",
          "Sun, 06 Nov 1994 08:49:37 GMT", 1.5, 2.5, 1, sha, "Sun, 06 Nov 1994 08:49:38 GMT",
        ],
        [
          b, b + "?token", CacheLayout.relativeFile(for: b), 20, "png", nil, nil,
          "Sunday, 06-Nov-94 08:49:37 GMT", 3.5, 4.5, 0, nil, "bad",
        ],
        [
          variant, variant, variantFile, 30, "webp", "image/webp", nil, nil, 5.5, 6.5, 0,
          String(repeating: "77", count: 32), nil,
        ],
      ]
      for row in rows { try db.execute(sql: insert, arguments: StatementArguments(row)) }
      try db.execute(
        sql: "INSERT INTO entry_use VALUES ((SELECT rowid FROM entry WHERE key = ?), 9.5, 2)",
        arguments: [a])
      try db.execute(
        sql: "INSERT INTO variant VALUES (?, ?, 'w=10', ?)", arguments: [variant, a, sha])
      try db.execute(sql: "UPDATE totals SET entries = 99, bytes = 0, allocated = 0")
    }
    try queue.close()

    let cache = DiskCache(directory: directory.url)
    let found = try cache.index.lookUp([a, b, variant], variants: true)
    let entries = Dictionary(uniqueKeysWithValues: found.entries.map { ($0.key, $0) })
    let first = try #require(entries[a])
    #expect(first.url == a && first.file == CacheLayout.relativeFile(for: a))
    #expect(first.contentType == "image/png" && first.etag == "\"e\"" && first.sha256 == sha)
    #expect(first.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(first.freshness.date == "Sun, 06 Nov 1994 08:49:38 GMT")
    #expect(first.accessCount == 3 && first.lastAccess == Date(timeIntervalSince1970: 9.5))
    let second = try #require(entries[b])
    #expect(second.url == b + "?token" && second.contentType == nil && second.sha256 == nil)
    #expect(second.lastModified == "Sunday, 06-Nov-94 08:49:37 GMT")
    #expect(second.freshness.date == "bad")
    #expect(entries[variant]?.file == variantFile)
    #expect(found.outdated.isEmpty, "the variant's original still has its body")
    #expect(try cache.index.variantSources(forKeys: [variant])[variant]?.sha256 == sha)
    #expect(try cache.totals() == CacheTotals(entries: 3, bytes: 60, allocated: 3 * 4096))
    _ = try cache.remove(key: a)
    #expect(try cache.index.entries(forKeys: [a, b]).map(\.key) == [b])
    cache.index.close()
    let names = try DatabaseQueue(path: layout.indexPath).read { db in
      try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_schema WHERE tbl_name = 'entry' ORDER BY name")
    }
    #expect(
      names == [
        "entry", "entry_created", "entry_digest", "entry_last_access", "entry_size",
        "entry_use_forget", "variant_forget",
      ])
  }
}

extension String {
  /// Sixteen hexadecimal digits, zeros first.
  fileprivate var leftPadded: String { String(repeating: "0", count: max(0, 16 - count)) + self }
}

/// `verify` reads a folder's rows a page at a time (flat memory at ten million entries).
@Suite("verify in pages of a folder's rows")
struct VerifyPagesTests {
  let directory = TemporaryDirectory()

  @Test("one row a page finds what whole folders find: missing, resized, orphans; repair fixes")
  func pagesFindTheSame() throws {
    let cache = DiskCache(directory: directory.url)
    let items = try (0..<600).map { index -> PendingStore in
      let body = directory.url.appendingPathComponent("body-\(index)").path
      try Data("body \(index)".utf8).write(to: URL(fileURLWithPath: body))
      let key = "https://pages.example/\(index).png"
      return PendingStore(temporaryPath: body, key: key, url: key, metadata: EntryMetadata())
    }
    #expect(try cache.store(items).allSatisfy { (try? $0.get()) != nil })
    let files = try cache.entries(matching: EntryFilter(), order: .stored, after: nil, limit: 600)
      .entries.map { cache.layout.dataPath($0.file) }
    for path in files[0..<5] { try FileManager.default.removeItem(atPath: path) }
    for path in files[5..<8] {
      try Data("longer than it was".utf8).write(to: URL(fileURLWithPath: path))
    }
    for index in 0..<4 {
      let folder = String(files[10 + index].dropLast(37).suffix(2))
      let orphan = cache.layout.dataPath(
        folder + "/" + String(repeating: "f", count: 31) + "\(index).png")
      try Data("stray".utf8).write(to: URL(fileURLWithPath: orphan))
    }
    let paged = try cache.verify(full: false, repair: false, pageSize: 1)
    let whole = try cache.verify(full: false, repair: false, pageSize: 10_000)
    #expect(paged == whole)
    #expect(paged.entries == 600 && paged.missing.count == 5)
    #expect(paged.sizeMismatches.count == 3 && paged.orphans.count == 4)
    let repaired = try cache.verify(full: false, repair: true, pageSize: 1)
    #expect(repaired.problems == 12)
    let after = try cache.verify()
    #expect(after.problems == 0 && after.entries == 595)
  }

  @Test("a stray upper-case folder folder is foreign: its twin's rows and bodies stay")
  func upperCaseShard() throws {
    let cache = DiskCache(directory: directory.url)
    let body = directory.url.appendingPathComponent("body").path
    try Data("body".utf8).write(to: URL(fileURLWithPath: body))
    let key = "https://pages.example/upper.png"
    let stored = try cache.store(body, key: key, url: key, metadata: EntryMetadata())
    let folder = String(stored.file.prefix(2))
    let twin = cache.layout.dataPath(folder.uppercased())
    try FileManager.default.createDirectory(atPath: twin, withIntermediateDirectories: true)
    try Data("stray".utf8).write(to: URL(fileURLWithPath: twin + "/stray.png"))
    _ = try cache.verify(repair: true)
    #expect(try cache.entry(forKey: key) != nil, "the row of \(folder)/ is kept")
    #expect(FileManager.default.fileExists(atPath: cache.layout.dataPath(stored.file)))
  }

  @Test("an index of a newer schema is refused with one line, never read")
  func newerSchema() throws {
    let cache = DiskCache(directory: directory.url)
    let body = directory.url.appendingPathComponent("body").path
    try Data("body".utf8).write(to: URL(fileURLWithPath: body))
    _ = try cache.store(
      body, key: "https://a.example/1.png", url: "https://a.example/1.png",
      metadata: EntryMetadata())
    cache.index.close()
    try DatabaseQueue(path: cache.layout.indexPath).write { db in
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
    }
    let again = DiskCache(directory: directory.url)
    try Data("body 2".utf8).write(to: URL(fileURLWithPath: body))
    let refused = #expect(throws: CacheError.self) {
      try again.store(
        body, key: "https://a.example/2.png", url: "https://a.example/2.png",
        metadata: EntryMetadata())
    }
    #expect(
      refused?.message.contains("written by a newer imgcache") == true,
      "\(String(describing: refused))")
  }
}
