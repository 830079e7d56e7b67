import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// The table reader (docs/design.md, Tables): each form, quoting, compression, and the rows it
/// refuses, with their lines.
@Suite("URL tables")
struct TableReaderTests {
  let directory = TemporaryDirectory("imgcache-tables")

  /// Writes `text` to a file named `name` and reads it whole.
  func items(
    _ name: String, _ bytes: [UInt8], format: TableFormat? = nil,
    columns: TableColumns = TableColumns()
  ) throws -> [TableItem] {
    let path = directory.path + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let reader = try TableReader(path: path, format: format, columns: columns)
    var items = [TableItem]()
    while true {
      let item = try reader.next()
      if item == .end { return items }
      items.append(item)
    }
  }

  func rows(_ items: [TableItem]) -> [TableRow] {
    items.compactMap { if case .row(let row) = $0 { return row } else { return nil } }
  }

  @Test("CSV: quotes, delimiters and line breaks in fields, CRLF, a BOM; lines counted")
  func csvQuoting() throws {
    let text =
      "\u{FEFF}id,url,caption\r\n1,http://a/1.png,plain\r\n2,\"http://a/2.png\",\"a, \"\"b\"\"\nc\"\r\n"
      + "\n3,http://a/3.png,5\" tall\n"
    let found = rows(
      try items("t.csv", Array(text.utf8), columns: TableColumns(caption: "caption", saved: ["id"]))
    )
    #expect(found.map(\.url) == ["http://a/1.png", "http://a/2.png", "http://a/3.png"])
    #expect(found.map(\.caption) == ["plain", "a, \"b\"\nc", "5\" tall"])
    #expect(found.map(\.line) == [2, 3, 6])
    #expect(found[1].saved == [.string("2")])
  }

  @Test(
    "a row with the wrong field count, no URL, a control character in its URL, or an unclosed quote is malformed, by line"
  )
  func malformedRows() throws {
    let text =
      "url,caption\nhttp://a/1.png,x,extra\n,empty\nhttp://a/2.png,ok\n\"http://a/4\r\n.png\",x\n"
      + "http://a/3.png,\"open\n"
    let found = try items("bad.csv", Array(text.utf8), columns: TableColumns(caption: "caption"))
    #expect(
      found == [
        .malformed(line: 2, reason: "3 fields where the header has 2"),
        .malformed(line: 3, reason: "no URL in column 'url'"),
        .row(
          TableRow(
            line: 4, url: "http://a/2.png", caption: "ok", saved: [], expectedHash: nil)),
        .malformed(line: 5, reason: "a control character in the URL"),
        .malformed(line: 7, reason: "a quoted field is never closed"),
      ])
  }

  @Test("a header without a named column is an error naming it and the columns there are")
  func missingColumn() throws {
    #expect {
      _ = try items("h.csv", Array("link,text\nhttp://a/1.png,x\n".utf8))
    } throws: { error in
      let message = (error as? CacheError)?.message ?? ""
      return message.contains("no column 'url'") && message.contains("'link'")
        && message.contains("--url-col")
    }
    let found = rows(
      try items("h2.csv", Array("link\nhttp://a/1.png\n".utf8), columns: .init(url: "link")))
    #expect(found.map(\.url) == ["http://a/1.png"])
  }

  @Test("TSV and JSON lines; JSON values keep their types; a bad line is malformed")
  func tsvAndJSON() throws {
    let tsv = rows(
      try items("t.tsv", Array("url\tn\nhttp://a/1.png\t7\n".utf8), columns: .init(saved: ["n"])))
    #expect(tsv.map(\.saved) == [[.string("7")]])
    let json =
      "{\"url\": \"http://a/1.png\", \"n\": 7, \"tags\": [\"x\", true], \"caption\": null}\n"
      + "not json\n[1]\n{\"url\": 5}\n"
    let found = try items(
      "t.jsonl", Array(json.utf8), columns: .init(caption: "caption", saved: ["n", "tags", "gone"]))
    #expect(
      rows(found).first?.saved == [.integer(7), .array([.string("x"), .bool(true)]), .null])
    #expect(rows(found).first?.caption == nil)
    #expect(rows(found).map(\.url) == ["http://a/1.png", "5"])
    #expect(found.filter { if case .malformed = $0 { true } else { false } }.count == 2)
  }

  @Test("gzip: one member or several in a row; a truncated stream is an error naming the file")
  func gzip() throws {
    let first = try gzipped("url\nhttp://a/1.png\n")
    let second = try gzipped("http://a/2.png\n")
    let found = rows(try items("t.csv.gz", first + second))
    #expect(found.map(\.url) == ["http://a/1.png", "http://a/2.png"])
    #expect(rows(try items("l.txt.gz", try gzipped("# c\nhttp://a/1.png\n\n"))).count == 1)
    #expect {
      _ = try items("cut.csv.gz", Array(first.prefix(first.count - 6)))
    } throws: { error in
      (error as? CacheError)?.message.contains("cut.csv.gz ends in the middle") == true
    }
  }

  @Test("a hash column is checked for its algorithm's digits; an empty one checks nothing")
  func hashColumn() throws {
    let sha = String(repeating: "A", count: 64)
    let text = "url,h\nhttp://a/1.png,\(sha)\nhttp://a/2.png,\nhttp://a/3.png,abc\n"
    let found = try items(
      "h.csv", Array(text.utf8), columns: .init(hash: ("h", .sha256)))
    #expect(rows(found).map(\.expectedHash) == [sha.lowercased(), nil])
    #expect(found.last == .malformed(line: 4, reason: "column 'h' is not a sha256 digest"))
  }

  @Test(
    "a quoted field over 100,000 lines is read in one pass (it was parsed again at every line)",
    .timeLimit(.minutes(1)))
  func manyLines() throws {
    let text = "url,caption\nhttp://a/1.png,\"" + String(repeating: "\n", count: 100_000) + "\"\n"
    let found = rows(try items("lines.csv", Array(text.utf8), columns: .init(caption: "caption")))
    #expect(found.count == 1 && found.first?.caption?.utf8.count == 100_000)
  }

  @Test("a line over 1 MiB is one malformed row; the rows after it are read")
  func longLine() throws {
    let text = "url\n" + String(repeating: "x", count: 3 << 20) + "\nhttp://a/2.png\n"
    let found = try items("long.csv", Array(text.utf8))
    #expect(found.first == .malformed(line: 2, reason: "longer than 1 MiB"))
    #expect(rows(found).map(\.url) == ["http://a/2.png"])
  }

  @Test("keys as img2dataset makes them: shard then index, padded to the shard size's digits")
  func keys() {
    let naming = ShardNaming(shardSize: 10_000)
    #expect(naming.key(shard: 0, index: 3) == "000000003")
    #expect(naming.key(shard: 1, index: 3) == "000010003")
    #expect(ShardNaming(shardSize: 10).key(shard: 2, index: 9) == "000029")
    #expect(ShardNaming(shardSize: 11).key(shard: 2, index: 10) == "0000210")
    #expect(ShardNaming(shardSize: 1).key(shard: 123_456, index: 0) == "123456")
  }

  @Test("formats from extensions and --input-format")
  func formats() throws {
    #expect(TableFormat.detect(from: "a/b.CSV.gz")! == (.csv, true))
    #expect(TableFormat.detect(from: "x.ndjson")! == (.jsonl, false))
    #expect(TableFormat.detect(from: "dir.csv/urls") == nil)
    #expect(try TableFormat.parse("tsv.gz") == (.tsv, true))
    #expect(throws: CacheError.self) { try TableFormat.parse("parquet") }
  }

  private func gzipped(_ text: String) throws -> [UInt8] {
    let path = directory.path + "/gz-\(UUID().uuidString)"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    run("/bin/gzip", ["-n", path])
    return Array(try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
  }
}
