import FoundationEssentials

/// The forms of a URL table (docs/design.md, Tables): what `prefetch`, `job submit` and
/// `export` read with `-i`.
public enum TableFormat: String, Sendable, CaseIterable {
  /// One URL a line; blank lines and `#` comments skipped (the column is `url`).
  case lines = "txt"
  /// Comma-separated values with a header line (RFC 4180 quoting).
  case csv
  /// Tab-separated values with a header line (the same quoting).
  case tsv
  /// One JSON object a line.
  case jsonl

  /// The format and compression named by `name`'s extension (`.csv`, `.tsv`, `.jsonl`,
  /// `.json`, `.txt`, each optionally `.gz`); nil when it names none.
  public static func detect(from name: String) -> (format: TableFormat, gzip: Bool)? {
    var lower = name.lowercased()
    let gzip = lower.hasSuffix(".gz")
    if gzip { lower.removeLast(3) }
    guard let dot = lower.lastIndex(of: "."), !lower[dot...].contains("/") else { return nil }
    switch lower[lower.index(after: dot)...] {
    case "csv": return (.csv, gzip)
    case "tsv", "tab": return (.tsv, gzip)
    case "jsonl", "ndjson", "json": return (.jsonl, gzip)
    case "txt", "list": return (.lines, gzip)
    default: return nil
    }
  }

  /// The format `text` names (`--input-format`): txt, csv, tsv, jsonl (json too), each with an
  /// optional `.gz`; `.invalidInput` naming the flag otherwise.
  public static func parse(_ text: String) throws -> (format: TableFormat, gzip: Bool) {
    guard let named = detect(from: "table." + text) else {
      throw CacheError(
        .invalidInput,
        "--input-format '\(text.containsControlCharacters ? "?" : text)': expected txt, csv, tsv "
          + "or jsonl, optionally with .gz (csv.gz)")
    }
    return named
  }
}

/// Which columns of a table matter: the URL's, the caption's, those kept with each sample, and
/// the one holding each body's expected hash.
public struct TableColumns: Sendable, Equatable {
  /// The URL's column (default `url`).
  public var url: String
  /// The caption's column, if any.
  public var caption: String?
  /// Columns kept with the URL's record (`--save-column`), in order.
  public var saved: [String]
  /// The column of each body's expected hash and its algorithm (`--verify-hash`).
  public var hash: (column: String, algorithm: HashAlgorithm)?

  /// The columns named; `url` is the URL's.
  public init(
    url: String = "url", caption: String? = nil, saved: [String] = [],
    hash: (column: String, algorithm: HashAlgorithm)? = nil
  ) {
    (self.url, self.caption, self.saved, self.hash) = (url, caption, saved, hash)
  }

  /// Parses `--verify-hash COL:ALGO`.
  public static func parseHash(_ text: String) throws -> (column: String, algorithm: HashAlgorithm)
  {
    guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
      let algorithm = HashAlgorithm(rawValue: text[text.index(after: colon)...].lowercased())
    else {
      throw CacheError(
        .invalidInput,
        "--verify-hash '\(text.containsControlCharacters ? "?" : text)': expected COLUMN:sha256 "
          + "or COLUMN:md5")
    }
    return (String(text[..<colon]), algorithm)
  }

  public static func == (lhs: TableColumns, rhs: TableColumns) -> Bool {
    lhs.url == rhs.url && lhs.caption == rhs.caption && lhs.saved == rhs.saved
      && lhs.hash?.column == rhs.hash?.column && lhs.hash?.algorithm == rhs.hash?.algorithm
  }
}

/// One row of a table, as the columns asked for it.
public struct TableRow: Sendable, Equatable {
  /// The line the row starts on, from 1 (a header is line 1).
  public var line: Int
  /// Its URL, trimmed.
  public var url: String
  /// Its caption, when a caption column is named and the row has one.
  public var caption: String?
  /// The saved columns' values, in ``TableColumns/saved``'s order (null when absent).
  public var saved: [TableValue]
  /// The body's expected hash, lowercase hex, when a hash column is named and the row has one.
  public var expectedHash: String?

  /// A row read from `line`.
  public init(
    line: Int, url: String, caption: String? = nil, saved: [TableValue] = [],
    expectedHash: String? = nil
  ) {
    (self.line, self.url, self.caption, self.saved) = (line, url, caption, saved)
    self.expectedHash = expectedHash
  }
}

/// What a table has next.
public enum TableItem: Sendable, Equatable {
  /// A row.
  case row(TableRow)
  /// A row that cannot be used (`line` from 1), and why: counted and reported, never fatal.
  case malformed(line: Int, reason: String)
  /// The end of the table.
  case end
}
