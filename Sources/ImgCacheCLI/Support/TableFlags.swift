import ArgumentParser
import ImgCacheKit

/// How `-i` is read as a table (docs/design.md, Tables): `prefetch`, `job submit` and `export`
/// take these.
struct TableInputFlags: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Read -i as txt, csv, tsv or jsonl, each optionally .gz (default: from its extension).",
      valueName: "format"))
  var inputFormat: String?
  @Option(name: .long, help: "The table's URL column (default url).")
  var urlCol: String?

  /// Whether `-i path` is a table rather than a plain list: a format or column is named, or
  /// its extension names a table.
  func isTable(_ path: String?) -> Bool {
    guard let path else { return false }
    return inputFormat != nil || urlCol != nil
      || (TableFormat.detect(from: path).map { $0.format != .lines || $0.gzip } ?? false)
  }

  /// The reader of the table at `path` with `columns` (the URL's from `--url-col`).
  func reader(_ path: String, columns: TableColumns = TableColumns()) throws -> TableReader {
    var columns = columns
    if let urlCol { columns.url = urlCol }
    let named = try inputFormat.map(TableFormat.parse)
    return try TableReader(
      path: path, format: named?.format, gzip: named?.gzip, columns: columns)
  }
}

/// The columns of a table an export keeps.
struct TableColumnFlags: ParsableArguments {
  @Option(
    name: .long,
    help: "The table's caption column (export: KEY.txt; --json and manifests: caption).")
  var captionCol: String?
  @Option(name: .long, help: "Keep column NAME in each sample's record (repeatable).")
  var saveColumn: [String] = []
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Refuse a body whose hash differs from column COL's.", valueName: "COL:sha256|md5"))
  var verifyHash: String?

  /// The columns named.
  func columns() throws -> TableColumns {
    TableColumns(
      caption: captionCol, saved: saveColumn, hash: try verifyHash.map(TableColumns.parseHash))
  }

  /// Whether any column is named.
  var areNamed: Bool { captionCol != nil || !saveColumn.isEmpty || verifyHash != nil }

  /// The columns a record keeps, when any is named (`prefetch --json`).
  func kept(_ columns: TableColumns) -> TableColumns? {
    captionCol != nil || !saveColumn.isEmpty ? columns : nil
  }
}

/// URLs from the arguments, then from a source (a table's).
final class ChainedURLs: URLSource {
  private let first: URLList
  private let then: any URLSource

  init(_ urls: [String], then: any URLSource) { (first, self.then) = (URLList(urls), then) }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    let item = try first.next(wait: wait, wake: wake)
    return item == .end ? try then.next(wait: wait, wake: wake) : item
  }
}

extension CommandContext {
  /// Warns of the malformed rows of table `name`: the first few with their lines, then the
  /// count.
  func warn(about damage: TableDamage, in name: String) {
    let count = damage.count
    guard count > 0 else { return }
    for (line, reason) in damage.first {
      console.warning("\(name), line \(line): \(reason); row skipped")
    }
    if count > TableDamage.kept {
      console.warning("\(name): \(count) malformed rows skipped in all")
    }
  }
}
