import FoundationEssentials

/// A table's input split into lines, numbered from 1, read in 64 KiB chunks as needed, so
/// memory stays flat whatever the table's length. A line longer than ``maxLength`` comes out
/// as ``Line/tooLong(_:)`` and is skipped to its end.
struct TableLines {
  /// The longest line (or CSV record) taken.
  static let maxLength = 1 << 20

  /// One line.
  enum Line {
    /// A line's bytes, without its `\n` or `\r\n`.
    case text(number: Int, bytes: ArraySlice<UInt8>)
    /// A line longer than ``maxLength``.
    case tooLong(Int)
  }

  private let bytes: any TableBytes
  private var buffer = [UInt8]()
  private var chunk = [UInt8](repeating: 0, count: 65_536)
  private var start = 0
  /// Where the search for the next line break goes on: the bytes before it have none.
  private var scanned = 0
  private var finished = false
  private var skipping = false
  private(set) var number = 0

  init(_ bytes: any TableBytes) { self.bytes = bytes }

  /// The next line; nil at the end.
  mutating func next() throws -> Line? {
    while true {
      if let newline = buffer[max(start, scanned)...].firstIndex(of: 0x0A) {
        let line = buffer[start..<newline]
        (start, scanned) = (newline + 1, newline + 1)
        if skipping {
          skipping = false
          continue
        }
        number += 1
        return .text(number: number, bytes: Self.trimmed(line))
      }
      if !skipping && buffer.count - start > Self.maxLength {
        (skipping, start, scanned) = (true, buffer.count, buffer.count)
        number += 1
        return .tooLong(number)
      }
      if finished {
        guard start < buffer.count, !skipping else { return nil }
        let line = buffer[start...]
        start = buffer.count
        number += 1
        return .text(number: number, bytes: Self.trimmed(line))
      }
      scanned = buffer.count
      // A line skipped as too long is dropped as it comes, not kept to its end.
      if skipping { start = buffer.count }
      try fill()
    }
  }

  /// Reads the next chunk, keeping what is left of the current line.
  private mutating func fill() throws {
    if start > 0 {
      buffer.removeSubrange(..<start)
      scanned -= min(scanned, start)
      start = 0
    }
    let first = buffer.isEmpty && number == 0
    let count = try chunk.withUnsafeMutableBytes { try bytes.read(into: $0) }
    buffer.append(contentsOf: chunk[..<count])
    if count == 0 { finished = true }
    // A UTF-8 byte-order mark at the very start is not part of the first line.
    if first && buffer.starts(with: [0xEF, 0xBB, 0xBF]) { (start, scanned) = (3, 3) }
  }

  private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    line.last == 0x0D ? line.dropLast() : line
  }
}

/// The fields of one CSV or TSV record (RFC 4180: a quoted field may hold the delimiter, a
/// line break and `""` for a quote; a quote inside an unquoted field is a character).
enum DelimitedRecord {
  /// The fields of `record`, split at `delimiter`, and whether it ends inside a quoted field
  /// (then the next line belongs to it).
  static func fields(of record: [UInt8], delimiter: UInt8) -> (fields: [String], open: Bool) {
    var fields = [String]()
    var field = [UInt8]()
    var (quoted, wasQuoted) = (false, false)
    var position = 0
    while position < record.count {
      let byte = record[position]
      position += 1
      if quoted {
        if byte != 0x22 {
          field.append(byte)
        } else if position < record.count && record[position] == 0x22 {
          field.append(0x22)
          position += 1
        } else {
          quoted = false
        }
      } else if byte == delimiter {
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        wasQuoted = false
      } else if byte == 0x22 && field.isEmpty && !wasQuoted {
        (quoted, wasQuoted) = (true, true)
      } else {
        field.append(byte)
      }
    }
    fields.append(String(decoding: field, as: UTF8.self))
    return (fields, quoted)
  }
}

/// Whether a CSV or TSV record is inside a quoted field after the bytes seen so far, as
/// ``DelimitedRecord/fields(of:delimiter:)`` reads it: fed a line at a time, each byte once.
struct QuoteScan {
  /// Inside a quoted field.
  private(set) var quoted = false
  private var wasQuoted = false
  private var fieldEmpty = true
  /// A quote inside a quoted field, closing it unless a second one follows.
  private var pendingQuote = false

  /// Reads `bytes`, the record's next ones.
  mutating func scan(_ bytes: some Sequence<UInt8>, delimiter: UInt8) {
    for byte in bytes {
      if pendingQuote {
        pendingQuote = false
        if byte == 0x22 {
          fieldEmpty = false
          continue
        }
        quoted = false
      }
      if quoted {
        if byte == 0x22 { pendingQuote = true } else { fieldEmpty = false }
      } else if byte == delimiter {
        (fieldEmpty, wasQuoted) = (true, false)
      } else if byte == 0x22 && fieldEmpty && !wasQuoted {
        (quoted, wasQuoted) = (true, true)
      } else {
        fieldEmpty = false
      }
    }
  }

  /// Ends the record's bytes: a quote left waiting closed its field.
  mutating func end() {
    if pendingQuote { (pendingQuote, quoted) = (false, false) }
  }
}
