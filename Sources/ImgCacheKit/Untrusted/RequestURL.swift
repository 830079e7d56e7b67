import FoundationEssentials

/// A request URL taken apart before anything touches the network: the credentials of its userinfo
/// are a credential, not part of the image's identity (docs/design.md, Cache semantics), so they
/// are split off — passed to libcurl as a login, never stored or printed.
package struct RequestURL: Sendable, Equatable {
  /// The URL without userinfo: what keys, the index and the failed list see.
  package var stripped: String
  /// The URL as printed: the userinfo, when there was one, shown as `***`.
  package var display: String
  /// `user:password` from the userinfo, percent-decoded.
  package var credentials: String?

  /// Takes `url` apart; throws `.invalidInput` unless it is an absolute http or https URL with
  /// a host and no control characters. Hosts may be international (libcurl converts them).
  package init(_ url: String) throws {
    // Most URLs are plain ASCII http(s) without userinfo: one pass over their bytes accepts
    // them (the checks below cost a `fetch -i` hit 5,000 instructions in generic metadata).
    (stripped, display, credentials) = Self.isPlain(url) ? (url, url, nil) : try Self.takeApart(url)
  }

  /// `url` checked and taken apart (see ``init(_:)``): without userinfo, as printed, and the
  /// credentials.
  static func takeApart(_ url: String) throws -> (
    stripped: String, display: String, credentials: String?
  ) {
    guard !url.containsControlCharacters else {
      throw CacheError(.invalidInput, "the URL holds a control character", url: Self.redacted(url))
    }
    guard let schemeEnd = URLText.schemeSeparator(in: url) else {
      throw CacheError(.invalidInput, "not a valid URL", url: Self.redacted(url))
    }
    // On the UTF-8 bytes, once: this runs for every URL of every batch.
    let bytes = url.utf8
    guard Self.isHTTP(bytes[..<schemeEnd.lowerBound]) else {
      let scheme = url[..<schemeEnd.lowerBound].lowercased()
      throw CacheError(
        .invalidInput, "unsupported scheme \(scheme) (only http and https)", url: Self.redacted(url)
      )
    }
    let rest = bytes[schemeEnd.upperBound...]
    let authority = rest[..<(rest.firstIndex(where: URLText.endsAuthority) ?? rest.endIndex)]
    let at = authority.lastIndex(of: UInt8(ascii: "@"))
    let hostPort = at.map { authority[authority.index(after: $0)...] } ?? authority
    // A host: something besides port colons ("[v6]" counts), and no space.
    guard hostPort.contains(where: { $0 != UInt8(ascii: ":") }),
      !hostPort.contains(UInt8(ascii: " "))
    else {
      throw CacheError(.invalidInput, "the URL has no host", url: Self.redacted(url))
    }
    // Most URLs have no userinfo: nothing to take apart.
    guard at != nil else { return (url, url, nil) }
    return (
      CacheKey.withoutUserinfo(url), CacheKey.redacted(url),
      CacheKey.userinfo(of: url).map { $0.2.percentDecoded ?? String($0.2) }
    )
  }

  /// Whether `url` is `http://` or `https://` (any case), then an authority without userinfo
  /// holding something besides port colons and no space, all in printable ASCII: a URL the
  /// checks of ``init(_:)`` accept as it is. False only means "take the long way".
  static func isPlain(_ url: String) -> Bool {
    var copy = url
    return copy.withUTF8 { bytes in
      var position = 0
      for expected in "http".utf8 {
        guard position < bytes.count, bytes[position] | 0x20 == expected else { return false }
        position += 1
      }
      if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "s") { position += 1 }
      for expected in "://".utf8 {
        guard position < bytes.count, bytes[position] == expected else { return false }
        position += 1
      }
      var hostHasMore = false
      var inAuthority = true
      while position < bytes.count {
        let byte = bytes[position]
        guard byte >= 0x20 && byte < 0x7F else { return false }
        if inAuthority {
          if URLText.endsAuthority(byte) {
            inAuthority = false
          } else if byte == UInt8(ascii: "@") || byte == UInt8(ascii: " ") {
            return false
          } else if byte != UInt8(ascii: ":") {
            hostHasMore = true
          }
        }
        position += 1
      }
      return hostHasMore
    }
  }

  /// Whether `scheme` is http or https, in any case.
  private static func isHTTP(_ scheme: Substring.UTF8View) -> Bool {
    guard scheme.count == 4 || scheme.count == 5 else { return false }
    for (byte, expected) in zip(scheme, "https".utf8) where byte | 0x20 != expected {
      return false
    }
    return true
  }

  /// `url` with its userinfo shown as `***`.
  package static func redacted(_ url: String) -> String { CacheKey.redacted(url) }
}
