import FoundationEssentials

/// How a URL becomes a cache key.
public enum KeyFilter: String, Sendable, CaseIterable {
  /// The URL without its fragment or userinfo (SDWebImage keys `absoluteString`, fragment
  /// included).
  case none
  /// The URL without its query and fragment, for signed or cache-busting URLs.
  case stripQuery = "strip-query"
}

/// Cache keys, file names and the metadata SDWebImage derives from a key.
public enum CacheKey {
  /// SDWebImage's limit on an extension: `NAME_MAX - 32 - 1`, counted here in UTF-8 bytes.
  public static let maxExtensionLength = 222

  /// What separates an original's key from a variant's spec in a variant's key (docs/design.md,
  /// Variants): never in an original's key (a URL's fragment is not part of its key, and a key
  /// given with `--key` may not hold it), so no original can pose as a variant.
  public static let variantSeparator = "#"

  /// Whether `key` is a variant's (derived) key.
  package static func isVariant(_ key: String) -> Bool { key.contains(variantSeparator) }

  /// Returns the cache key of `url` under `filter`: the URL without its fragment, and without
  /// its query for `.stripQuery`.
  public static func key(for url: String, filter: KeyFilter = .none) -> String {
    var url = withoutUserinfo(url)
    // On the contiguous UTF-8 bytes: a search by Character runs the grapheme breaker on every
    // byte, and one through `String.Index` cost ≈900 instructions a URL.
    let cut = url.withUTF8 { bytes -> Int in
      var end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
      if filter == .stripQuery, let query = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) {
        end = query
      }
      return end
    }
    return cut == url.utf8.count
      ? url : String(url[..<url.utf8.index(url.utf8.startIndex, offsetBy: cut)])
  }

  /// `url` without the userinfo of its authority (`user:password@`): a credential, never part
  /// of an image's identity.
  public static func withoutUserinfo(_ url: String) -> String {
    guard let (prefix, at, _) = userinfo(of: url) else { return url }
    return String(url[..<prefix] + url[url.index(after: at)...])
  }

  /// `url` with its userinfo shown as `***`, for anything printed.
  public static func redacted(_ url: String) -> String {
    guard let (prefix, at, _) = userinfo(of: url) else { return url }
    return String(url[..<prefix] + "***" + url[at...])
  }

  /// Where the userinfo of `url` starts, its `@`, and its text.
  package static func userinfo(of url: String) -> (String.Index, String.Index, Substring)? {
    // Most URLs have no `@` at all: one scan of their contiguous bytes says so.
    if url.utf8.withContiguousStorageIfAvailable({ !$0.contains(UInt8(ascii: "@")) }) == true {
      return nil
    }
    guard let schemeEnd = URLText.schemeSeparator(in: url) else { return nil }
    // On the UTF-8 bytes: a walk by Characters runs the grapheme breaker on every byte.
    let rest = url.utf8[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex(where: URLText.endsAuthority) ?? rest.endIndex
    guard let at = rest[..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return nil }
    return (schemeEnd.upperBound, at, url[schemeEnd.upperBound..<at])
  }

  /// Returns the file name of `key`: the lowercase MD5 of its UTF-8 bytes, plus `.ext` when the
  /// key's path has a safe extension.
  public static func fileName(for key: String) -> String {
    let hash = MD5.hex(of: key)
    guard let ext = fileExtension(of: key) else { return hash }
    return hash + "." + ext
  }

  /// Returns the extension SDWebImage would give `key`, further limited to letters, digits,
  /// `_` and `-`; `nil` when there is none.
  ///
  /// The extension comes from the last segment of the URL path only (query and fragment are
  /// ignored), percent-decoded, with `\0` and `:` removed, dropped when empty or longer than
  /// ``maxExtensionLength``.
  public static func fileExtension(of key: String) -> String? {
    let segment = percentDecoded(lastPathSegment(of: key))
    guard let dot = segment.lastIndex(of: UInt8(ascii: ".")), dot != segment.startIndex else {
      return nil
    }
    let ext = segment[(dot + 1)...].filter { $0 != 0 && $0 != UInt8(ascii: ":") }
    guard !ext.isEmpty, ext.count <= maxExtensionLength else { return nil }
    guard ext.allSatisfy(isSafeExtensionByte) else { return nil }
    return String(decoding: ext, as: UTF8.self)
  }

  /// Returns the display scale SDWebImage infers from `key`: 2 for `@2x.`, 3 for `@3x.`, else 1.
  public static func scale(of key: String) -> Int {
    guard key.utf16.count >= 8 else { return 1 }
    let isWeb = key.hasPrefix("http://") || key.hasPrefix("https://")
    // On the UTF-8 bytes: Foundation's `contains` goes through NSString on Linux (33,000
    // instructions for the four searches of a stored key).
    let bytes = Array(key.utf8)
    for factor in [2, 3] {
      let digit = UInt8(ascii: "0") + UInt8(factor)
      if bytes.contains(sequence: [UInt8(ascii: "@"), digit, UInt8(ascii: "x"), UInt8(ascii: ".")])
        || (isWeb
          && bytes.contains(
            sequence: Array("%40".utf8) + [digit, UInt8(ascii: "x"), UInt8(ascii: ".")]))
      {
        return factor
      }
    }
    return 1
  }

  private static func isSafeExtensionByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
      return true
    default:
      return false
    }
  }

  /// The last segment of the path of `key` (RFC 3986), still percent-encoded.
  static func lastPathSegment(of key: String) -> Substring.UTF8View {
    var bytes = Substring(key).utf8
    if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
      bytes = bytes[..<end]
    }
    // Skip "scheme:" when the key starts with one, and "//authority" after it.
    if let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
      bytes[..<colon].allSatisfy(isSchemeByte), colon != bytes.startIndex
    {
      bytes = bytes[bytes.index(after: colon)...]
      if bytes.starts(with: "//".utf8) {
        let afterSlashes = bytes.index(bytes.startIndex, offsetBy: 2)
        let rest = bytes[afterSlashes...]
        bytes = rest[(rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex)...]
      }
    }
    if let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
      bytes = bytes[bytes.index(after: slash)...]
    }
    return bytes
  }

  private static func isSchemeByte(_ byte: UInt8) -> Bool {
    isSafeExtensionByte(byte) && byte != UInt8(ascii: "_") || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: ".")
  }

  /// Decodes `%XX` escapes; a malformed escape is kept as it is.
  static func percentDecoded<Bytes: Collection>(_ bytes: Bytes) -> [UInt8]
  where Bytes.Element == UInt8 {
    let input = Array(bytes)
    var out = [UInt8]()
    out.reserveCapacity(input.count)
    var i = 0
    while i < input.count {
      if input[i] == UInt8(ascii: "%"), i + 2 < input.count,
        let high = Hex.value(of: input[i + 1]), let low = Hex.value(of: input[i + 2])
      {
        out.append(high << 4 | low)
        i += 3
      } else {
        out.append(input[i])
        i += 1
      }
    }
    return out
  }
}

extension Array where Element == UInt8 {
  /// Whether `sequence` occurs in these bytes.
  fileprivate func contains(sequence: [UInt8]) -> Bool {
    guard !sequence.isEmpty, sequence.count <= count else { return sequence.isEmpty }
    return (0...(count - sequence.count)).contains { start in
      self[start..<(start + sequence.count)].elementsEqual(sequence)
    }
  }
}
