/// Parts of a URL's text, read without parsing the whole URL (per transfer and per row).
package enum URLText {
  /// `host[:port]`, lowercased, without userinfo: the per-host limits of the downloader and
  /// `size --by host` group by it. Empty when the text has no `scheme://`.
  package static func host(of url: String) -> String {
    var url = url
    // Over the contiguous UTF-8 bytes with integer offsets: through `String.Index` (the UTF-8
    // view's) this took 3,800 instructions a URL, on the download loop's thread.
    return url.withUTF8(host(in:))
  }

  private static func host(in bytes: UnsafeBufferPointer<UInt8>) -> String {
    // After the first "://", up to the end of the authority, after its last "@".
    guard let offset = schemeSeparatorOffset(in: bytes) else { return "" }
    var start = offset + 3
    var end = start
    while end < bytes.count && !endsAuthority(bytes[end]) {
      if bytes[end] == UInt8(ascii: "@") { start = end + 1 }
      end += 1
    }
    let host = UnsafeBufferPointer(rebasing: bytes[start..<end])
    guard host.allSatisfy({ $0 < 0x80 }) else {
      return String(decoding: host, as: UTF8.self).lowercased()
    }
    return String(unsafeUninitializedCapacity: host.count) { buffer in
      for (index, byte) in host.enumerated() {
        buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
      }
      return host.count
    }
  }

  /// Whether `byte` ends a URL's authority (`/`, `?` or `#`).
  package static func endsAuthority(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
  }

  /// Where the first `://` of `url` is. Scans the UTF-8 bytes: Foundation's `range(of:)` goes
  /// through NSString on Linux and cost 30,000 instructions a call, four calls a URL.
  package static func schemeSeparator(in url: String) -> Range<String.Index>? {
    var text = url
    guard let offset = text.withUTF8(schemeSeparatorOffset(in:)) else { return nil }
    let start = url.utf8.index(url.utf8.startIndex, offsetBy: offset)
    return start..<url.utf8.index(start, offsetBy: 3)
  }

  /// The offset of the first `://` in `bytes` (a URL's UTF-8): the one scan behind
  /// ``schemeSeparator(in:)`` and ``host(of:)``.
  private static func schemeSeparatorOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var offset = 0
    while offset + 2 < bytes.count {
      if bytes[offset] == UInt8(ascii: ":") && bytes[offset + 1] == UInt8(ascii: "/")
        && bytes[offset + 2] == UInt8(ascii: "/")
      {
        return offset
      }
      offset += 1
    }
    return nil
  }
}
