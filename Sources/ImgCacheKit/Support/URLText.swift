/// Parts of a URL's text, read without parsing the whole URL (per transfer and per row).
enum URLText {
  /// `host[:port]`, lowercased, without userinfo: the per-host limits of the downloader and
  /// `size --by host` group by it. Empty when the text has no `scheme://`.
  static func host(of url: String) -> String {
    guard let schemeEnd = schemeSeparator(in: url) else { return "" }
    // UTF-8 bytes, not characters: grapheme breaking made this 19,000 instructions a URL.
    let rest = url.utf8[schemeEnd.upperBound...]
    let end = rest.firstIndex(where: endsAuthority) ?? rest.endIndex
    let authority = rest[..<end]
    let start = authority.lastIndex(of: UInt8(ascii: "@")).map(authority.index(after:))
    let host = authority[(start ?? authority.startIndex)...]
    guard host.allSatisfy({ $0 < 0x80 }) else { return String(Substring(host)).lowercased() }
    return String(decoding: host.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
  }

  /// Whether `byte` ends a URL's authority (`/`, `?` or `#`).
  static func endsAuthority(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
  }

  /// Where the first `://` of `url` is. Scans the UTF-8 bytes: Foundation's `range(of:)` goes
  /// through NSString on Linux and cost 30,000 instructions a call, four calls a URL.
  static func schemeSeparator(in url: String) -> Range<String.Index>? {
    let bytes = url.utf8
    var index = bytes.startIndex
    while index != bytes.endIndex {
      if bytes[index] == UInt8(ascii: ":") {
        let slash = bytes.index(after: index)
        if slash != bytes.endIndex, bytes[slash] == UInt8(ascii: "/") {
          let second = bytes.index(after: slash)
          if second != bytes.endIndex, bytes[second] == UInt8(ascii: "/") {
            return index..<bytes.index(after: second)
          }
        }
      }
      index = bytes.index(after: index)
    }
    return nil
  }
}
