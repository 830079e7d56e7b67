import FoundationEssentials

/// A URL table read row by row (docs/design.md, Tables): CSV, TSV, JSON lines or plain lines,
/// each optionally gzip-compressed. Streams: memory stays flat whatever its length. A row that
/// cannot be used is an item of its own (``TableItem/malformed(line:reason:)``), never an
/// error; a table that cannot be read, or whose header lacks a named column, is.
public final class TableReader {
  /// What messages call the table: its path, or "standard input".
  public let name: String
  /// The table's form.
  public let format: TableFormat
  /// The columns asked for.
  public let columns: TableColumns
  private var lines: TableLines
  /// The header's column positions (CSV and TSV), once read.
  private var positions: [String: Int]?
  private var headerCount = 0
  private let decoder = JSONDecoder()

  /// Opens the table at `path` (`-`: standard input) in `format` (when nil, the path's
  /// extension names it; plain lines when it names none), gzip-compressed when `gzip` says so
  /// (when nil, a `.gz` extension does).
  public convenience init(
    path: String, format: TableFormat? = nil, gzip: Bool? = nil, columns: TableColumns
  ) throws {
    let detected = TableFormat.detect(from: path)
    let file = try FileBytes(path: path)
    try self.init(
      file, name: file.name, format: format ?? detected?.format ?? .lines,
      gzip: gzip ?? detected?.gzip ?? false, columns: columns)
  }

  /// Reads the table `bytes` (called `name` in messages) in `format`.
  package init(
    _ bytes: any TableBytes, name: String, format: TableFormat, gzip: Bool, columns: TableColumns
  ) throws {
    (self.name, self.format, self.columns) = (name, format, columns)
    lines = TableLines(gzip ? try GzipBytes(bytes, name: name) : bytes)
    if format == .lines,
      columns.url != "url" || columns.caption != nil
        || !columns.saved.isEmpty || columns.hash != nil
    {
      throw CacheError(
        .invalidInput,
        "\(name) is a plain list of URLs: columns (--url-col, --caption-col, --save-column, "
          + "--verify-hash) need a csv, tsv or jsonl table (--input-format)")
    }
    // The header at once: a column it lacks stops the command before any work.
    if format == .csv || format == .tsv, case .malformed(let line, let reason) = try next() {
      throw CacheError(.invalidInput, "\(name), line \(line), the header: \(reason)")
    }
  }

  /// The next row, malformed row, or the end.
  public func next() throws -> TableItem {
    while let line = try lines.next() {
      guard case .text(let number, let bytes) = line else {
        if case .tooLong(let number) = line {
          return .malformed(line: number, reason: "longer than \(TableLines.maxLength >> 20) MiB")
        }
        continue
      }
      if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
      switch format {
      case .lines:
        let text = String(decoding: bytes, as: UTF8.self).trimming(where: Self.isBlank)
        if text.hasPrefix("#") { continue }
        return .row(TableRow(line: number, url: text, caption: nil, saved: [], expectedHash: nil))
      case .jsonl:
        return jsonRow(bytes, line: number)
      case .csv, .tsv:
        return try delimitedRow(bytes, line: number)
      }
    }
    return .end
  }

  /// The row of a JSON line.
  private func jsonRow(_ bytes: ArraySlice<UInt8>, line: Int) -> TableItem {
    guard let object = try? decoder.decode([String: TableValue].self, from: Data(bytes)) else {
      return .malformed(line: line, reason: "not a JSON object")
    }
    return row(line: line) { object[$0] }
  }

  /// The row of a CSV or TSV record starting with `bytes`; for the header (the first
  /// record), ``TableItem/end`` once it is read.
  private func delimitedRow(_ bytes: ArraySlice<UInt8>, line: Int) throws -> TableItem {
    var record = Array(bytes)
    let delimiter: UInt8 = format == .tsv ? 0x09 : 0x2C
    // Whether a quoted field runs on into the next line, followed line by line (each line
    // scanned once): a record is split into fields once it is whole.
    var quotes = QuoteScan()
    quotes.scan(record, delimiter: delimiter)
    quotes.end()  // a line is followed by a line break or nothing: never by a quote
    while quotes.quoted {
      guard case .text(_, let more) = try lines.next(), record.count < TableLines.maxLength else {
        return .malformed(line: line, reason: "a quoted field is never closed")
      }
      record.append(0x0A)
      record.append(contentsOf: more)
      quotes.scan(CollectionOfOne(0x0A), delimiter: delimiter)
      quotes.scan(more, delimiter: delimiter)
      quotes.end()
    }
    let fields = DelimitedRecord.fields(of: record, delimiter: delimiter).fields
    guard let positions else {
      try readHeader(fields)
      return .end
    }
    guard fields.count == headerCount else {
      return .malformed(
        line: line, reason: "\(fields.count) fields where the header has \(headerCount)")
    }
    return row(line: line) { positions[$0].map { .string(fields[$0]) } }
  }

  /// Takes `fields` as the header; `.invalidInput` when it lacks a column asked for.
  private func readHeader(_ fields: [String]) throws {
    var positions = [String: Int]()
    for (position, field) in fields.enumerated() where positions[field] == nil {
      positions[field] = position
    }
    let wanted =
      [("--url-col", columns.url)] + (columns.caption.map { [("--caption-col", $0)] } ?? [])
      + columns.saved.map { ("--save-column", $0) }
      + (columns.hash.map { [("--verify-hash", $0.column)] } ?? [])
    for (flag, column) in wanted where positions[column] == nil {
      let known = fields.prefix(20).map { "'\($0.prefix(40))'" }.joined(separator: ", ")
      throw CacheError(
        .invalidInput,
        "\(name) has no column '\(column.prefix(80))' (its columns: \(known)); name it with \(flag)"
      )
    }
    self.positions = positions
    headerCount = fields.count
  }

  /// A space or a tab: what is trimmed from a URL, a hash and a plain list's line.
  private static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

  /// The row whose cells `cell` finds by column name.
  private func row(line: Int, cell: (String) -> TableValue?) -> TableItem {
    guard let url = cell(columns.url)?.text?.trimming(where: Self.isBlank), !url.isEmpty else {
      return .malformed(line: line, reason: "no URL in column '\(columns.url.prefix(80))'")
    }
    // A line break or other control character is no part of a URL (and would split a job's
    // list of URLs, one a line, in two).
    guard !url.containsControlCharacters else {
      return .malformed(line: line, reason: "a control character in the URL")
    }
    var expected: String?
    if let hash = columns.hash, let text = cell(hash.column)?.text?.trimming(where: Self.isBlank),
      !text.isEmpty
    {
      let lower = text.lowercased()
      guard lower.utf8.count == hash.algorithm.hexLength, lower.utf8.allSatisfy(\.isHexDigit)
      else {
        return .malformed(
          line: line,
          reason: "column '\(hash.column.prefix(80))' is not a \(hash.algorithm.rawValue) digest")
      }
      expected = lower
    }
    let caption = columns.caption.flatMap { cell($0)?.text }
    return .row(
      TableRow(
        line: line, url: url, caption: caption, saved: columns.saved.map { cell($0) ?? .null },
        expectedHash: expected))
  }
}
