import FoundationEssentials

/// What a table's rows say of a shard's URLs, as its stream entry keeps them (docs/fleet.md,
/// Keys): the field `rows`, one JSON object a line beside each URL of `urls` (`{}` for a row
/// that says nothing), present only when some row says something. Read back as outside data:
/// a field that does not fit its URLs makes the shard malformed, never a row left unchecked.
package enum ShardRows {
  /// One line of the field.
  struct Line: Codable {
    var sha256: String?
    var md5: String?
    var caption: String?
    var saved: [TableValue]?
  }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// The URLs of a shard's entry (`urls`, one a line: split on the byte, as `\r\n` is one
  /// Character) with what each row says (`rows`, when there); nil when `urls` is missing or
  /// not UTF-8, or the rows do not fit the URLs.
  static func listed(_ fields: [String: Data]) -> [ListedURL]? {
    guard let text = fields["urls"].flatMap({ String(validating: $0, as: UTF8.self) }) else {
      return nil
    }
    let urls = text.utf8.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    guard let raw = fields["rows"] else { return urls.map { ListedURL($0) } }
    guard let rows = String(validating: raw, as: UTF8.self),
      let notes = notes(rows[...], count: urls.count)
    else { return nil }
    return zip(urls, notes).map { ListedURL($0, notes: $1) }
  }

  /// The `rows` field of a shard of `items`; nil when no row says anything.
  static func field(_ items: [ListedURL]) -> String? {
    guard items.contains(where: { $0.notes != nil }) else { return nil }
    return items.map { line($0.notes) }.joined(separator: "\n")
  }

  /// The line of one row's `notes` (JSON escapes a caption's line breaks).
  static func line(_ notes: RowNotes?) -> String {
    guard let notes else { return "{}" }
    var line = Line(caption: notes.caption, saved: notes.saved.isEmpty ? nil : notes.saved)
    switch notes.digest?.algorithm {
    case .sha256?: line.sha256 = notes.digest?.hex
    case .md5?: line.md5 = notes.digest?.hex
    case nil: break
    }
    return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// The notes of a shard's `count` URLs from its `rows` field; nil when it is malformed (a
  /// line count other than the URLs', a line that is not a row, a digest that is not one).
  package static func notes(_ text: Substring, count: Int) -> [RowNotes?]? {
    let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
    guard lines.count == count else { return nil }
    let decoder = JSONDecoder()
    var notes = [RowNotes?]()
    notes.reserveCapacity(count)
    for text in lines {
      guard let line = try? decoder.decode(Line.self, from: Data(text)) else { return nil }
      guard let row = row(line) else { return nil }
      notes.append(row)
    }
    return notes
  }

  /// The notes of `line` (nil inside when it says nothing); nil when its digest is not one.
  private static func row(_ line: Line) -> RowNotes?? {
    var digest: ExpectedDigest?
    for (algorithm, hex) in [(HashAlgorithm.sha256, line.sha256), (.md5, line.md5)] {
      guard let hex else { continue }
      guard digest == nil, hex.utf8.count == algorithm.hexLength,
        hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
      else { return nil }
      digest = ExpectedDigest(algorithm, hex: hex)
    }
    guard digest != nil || line.caption != nil || !(line.saved ?? []).isEmpty else {
      return .some(nil)
    }
    return .some(RowNotes(digest: digest, caption: line.caption, saved: line.saved ?? []))
  }
}
