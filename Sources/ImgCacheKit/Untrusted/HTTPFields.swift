import FoundationEssentials

/// One response header line as libcurl hands it over (`Name: value\r\n`), split at its first
/// colon: every name, whatever its length (RFC 9110 §5.1: a token), lowercased; the value
/// without the whitespace around it. A line whose name is not a token, or whose value holds a
/// control character other than a tab, is no header (nil): it never reaches a decision, the
/// index or a later request.
package struct HeaderLine: Equatable {
  /// The lowercase field name.
  package var name: String
  /// The field value, trimmed.
  package var value: String

  package static func parse(_ bytes: UnsafeRawBufferPointer) -> HeaderLine? {
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
    let name = bytes[..<colon]
    guard name.allSatisfy(HTTPFields.isTokenByte), let value = value(after: colon, in: bytes)
    else { return nil }
    return HeaderLine(
      name: String(decoding: name, as: UTF8.self).lowercased(),
      value: String(decoding: value, as: UTF8.self))
  }

  /// The line when its field is one of `names` (``Names``): the name is matched as bytes,
  /// without case, before any string is made (a response's other lines cost no allocation);
  /// nil for any other line and for a malformed one.
  package static func parse(_ bytes: UnsafeRawBufferPointer, keeping names: Names) -> HeaderLine? {
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
      let name = names.match(bytes[..<colon]), let value = value(after: colon, in: bytes)
    else { return nil }
    return HeaderLine(name: name, value: String(decoding: value, as: UTF8.self))
  }

  /// The value after the colon at `colon`, without the whitespace around it; nil when it holds
  /// a control character other than a tab.
  private static func value(after colon: Int, in bytes: UnsafeRawBufferPointer) -> Slice<
    UnsafeRawBufferPointer
  >? {
    var value = bytes[(colon + 1)...]
    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    while let first = value.first, isSpace(first) { value = value.dropFirst() }
    while let last = value.last, isSpace(last) { value = value.dropLast() }
    guard !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
    return value
  }

  /// Field names a reader keeps, lowercase, matched against a line's bytes without case.
  package struct Names: Sendable {
    private let names: [(name: String, bytes: [UInt8])]

    package init(_ names: [String]) {
      self.names = names.map { ($0.lowercased(), Array($0.lowercased().utf8)) }
    }

    /// The kept name that `bytes` spell, in any case.
    func match(_ bytes: Slice<UnsafeRawBufferPointer>) -> String? {
      for candidate in names where candidate.bytes.count == bytes.count {
        let equal = zip(candidate.bytes, bytes).allSatisfy { kept, byte in
          kept == (UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte | 0x20 : byte)
        }
        if equal { return candidate.name }
      }
      return nil
    }
  }
}

/// The field values imgcache acts on, parsed strictly (RFC 9110, RFC 9111): what does not
/// parse is "unknown" (nil), never a trap and never a guess in the unsafe direction.
package enum HTTPFields {
  /// The fields whose values form a list: several lines are joined with ", ". Of every other
  /// field only the first line counts (RFC 9111 §4.2.1: the first of duplicated `Expires`).
  package static let listFields: Set<String> = ["cache-control", "content-encoding"]

  /// Whether `value` may be sent as a request header's value: no control character (CR, LF,
  /// NUL…), no Unicode line break. Every value that becomes a request header passes here,
  /// wherever it comes from (`-H`, the index, a remote object's metadata, a config file).
  package static func isSafeValue<Text: StringProtocol>(_ value: Text) -> Bool {
    value.isSingleLine
  }

  /// Whether `byte` may appear in a token (a field name, a directive name).
  package static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  /// The largest delta-seconds kept: 2³¹ (RFC 9111 §1.2.2: a larger value, or one that
  /// overflows, counts as this).
  static let maxDeltaSeconds: Int64 = 2_147_483_648

  /// `delta-seconds` (RFC 9111 §1.2.2): ASCII digits only, clamped to ``maxDeltaSeconds``;
  /// nil for anything else (`7200.0`, `-1`, `1e3`, `0x10`, empty).
  static func deltaSeconds<Text: StringProtocol>(_ text: Text) -> TimeInterval? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    let value = Checked.digits(text) ?? maxDeltaSeconds
    return TimeInterval(min(value, maxDeltaSeconds))
  }

  /// `Age` (RFC 9111 §5.1): of a list, the first member; a value that is not delta-seconds is
  /// ignored (nil).
  package static func age(_ text: String?) -> TimeInterval? {
    guard let text else { return nil }
    let first = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)[0]
    return deltaSeconds(first.trimmingWhitespace())
  }

  /// `Content-Length`: digits only; nil for anything else (a list, a sign, a space inside).
  package static func contentLength(_ text: String?) -> Int64? {
    text.flatMap { Checked.digits($0) }
  }
}

/// `Content-Range: bytes FIRST-LAST/COMPLETE` of a 206 (RFC 9110 §14.4), strictly: nil unless
/// FIRST ≤ LAST < COMPLETE (COMPLETE may be `*`: unknown).
package struct ContentRange: Equatable {
  package var first: Int64
  package var last: Int64
  /// The whole representation's length; nil for `*`.
  package var complete: Int64?

  init(first: Int64, last: Int64, complete: Int64?) {
    self.first = first
    self.last = last
    self.complete = complete
  }

  package init?(_ text: String?) {
    guard let text, text.hasPrefix("bytes ") else { return nil }
    let rest = text.dropFirst(6)
    guard let dash = rest.firstIndex(of: "-"), let slash = rest.firstIndex(of: "/"), dash < slash,
      let first = Checked.digits(rest[..<dash]),
      let last = Checked.digits(rest[rest.index(after: dash)..<slash]), first <= last
    else { return nil }
    let length = rest[rest.index(after: slash)...]
    if length == "*" {
      self.init(first: first, last: last, complete: nil)
      return
    }
    guard let complete = Checked.digits(length), last < complete else { return nil }
    self.init(first: first, last: last, complete: complete)
  }
}
