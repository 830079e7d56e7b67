import FoundationEssentials

/// One backend of `remote_storage` taken apart before anything else reads it: a config value
/// or `--remote` text is untrusted, and it may hold a password (docs/design.md, "Untrusted
/// input"). Nothing here prints the text it was given: errors name the backend by its number,
/// and everything shown afterwards is ``label``, built from the parsed parts.
package struct BackendAddress: Sendable, Equatable {
  /// The URL (userinfo included) and the `|attribute=value` parts after it.
  package var url: String
  package var attributes: [Substring]
  /// `scheme://[***@]host[:port]/path`: no userinfo, no query, no fragment, no attribute.
  package var label: String

  /// Characters a userinfo may hold as they are (RFC 3986: unreserved, sub-delims, `:`), besides
  /// `%XX`; anything else (`@ # ? / |`, a space, a non-ASCII letter) must be percent-encoded.
  private static let userinfoBytes = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:".utf8)

  /// Takes `token`, backend number `number`, apart. The userinfo is everything between `://`
  /// and the token's last `@`, so no character of a password can end it early.
  package init(_ token: String, number: Int) throws {
    func bad(_ why: String) -> CacheError {
      CacheError(.invalidInput, "remote storage backend \(number): \(why)")
    }
    guard !token.containsControlCharacters else { throw bad("holds a control character") }
    let schemeEnd = token.firstRange(of: "://")
    var prefix = Substring("")
    var rest = Substring(token)
    var userinfo: Substring?
    if let schemeEnd {
      prefix = token[..<schemeEnd.upperBound]
      rest = token[schemeEnd.upperBound...]
      if let at = rest.lastIndex(of: "@") {
        userinfo = rest[..<at]
        rest = rest[rest.index(after: at)...]
      }
    }
    if let userinfo, !Self.isValidUserinfo(userinfo) {
      throw bad(
        "its user name or password holds a character that must be percent-encoded "
          + "(@ as %40, # as %23, ? as %3F, / as %2F, | as %7C, a space as %20, % as %25); "
          + "better, pass secrets in IMGCACHE_REMOTE_STORAGE or the config file")
    }
    let parts = rest.split(separator: "|", omittingEmptySubsequences: false)
    let address = parts[0]
    url = String(prefix) + (userinfo.map { $0 + "@" } ?? "") + address
    attributes = Array(parts.dropFirst())
    let path = address.prefix { $0 != "?" && $0 != "#" }
    label = String(prefix) + (userinfo == nil ? "" : "***@") + path
  }

  private static func isValidUserinfo(_ text: Substring) -> Bool {
    let bytes = Array(text.utf8)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit
        else { return false }
        index += 3
        continue
      }
      guard userinfoBytes.contains(bytes[index]) else { return false }
      index += 1
    }
    return true
  }

  /// Checks the host and port of a server URL (one of `servers=`, with `*` replaced): a host, and a
  /// port of 1 to 65535 when one is given. `shown` names the URL in errors (its label).
  package static func checkAuthority(_ url: String, shown: String) throws {
    func bad(_ why: String) -> CacheError {
      CacheError(.invalidInput, "remote storage \(shown): \(why)")
    }
    guard let schemeEnd = url.firstRange(of: "://") else { return }
    var rest = url[schemeEnd.upperBound...]
    if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    var host = authority
    var port: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw bad("malformed IPv6 host") }
      host = authority[...close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw bad("malformed IPv6 host") }
        port = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      port = authority[authority.index(after: colon)...]
    }
    if let port {
      guard let number = Checked.digits(port), (1...65_535).contains(number) else {
        throw bad("the port must be a number from 1 to 65535")
      }
    }
    let unixSocket = url.hasPrefix("redis+unix://")
    guard unixSocket || !host.isEmpty else { throw bad("no host") }
  }

  /// A `connect-timeout` or `operation-timeout` value: ccache's unit (a bare number is
  /// milliseconds) or a duration with a unit; finite, above 0 and at most an hour, or nil.
  package static func timeout(_ text: String) -> TimeInterval? {
    let seconds: TimeInterval?
    if let count = Double(text) {
      seconds = count / 1000
    } else if text.hasSuffix("ms"), let count = Double(text.dropLast(2)) {
      seconds = count / 1000
    } else {
      seconds = PolicyValue.duration(text)
    }
    guard let seconds, seconds.isFinite, seconds > 0, seconds <= maximumTimeout else { return nil }
    return seconds
  }

  /// The longest timeout a backend may have: an hour.
  static let maximumTimeout: TimeInterval = 3_600

  /// Whether a server name may replace `*` in a URL: letters, digits and `.-_~:[]` only, so a
  /// name can never add a userinfo, a path or a query.
  package static func isValidServerName(_ name: Substring) -> Bool {
    !name.isEmpty
      && name.utf8.allSatisfy {
        $0.isHexDigit || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
          || Array(".-_~:[]".utf8).contains($0)
      }
  }
}

extension UInt8 {
  /// Whether the byte is an ASCII hexadecimal digit.
  package var isHexDigit: Bool {
    (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
  }
}
