import CCurl
import FoundationEssentials
import Glibc

extension TransferOptions {
  /// Checks a `--resolve` entry, `HOST:PORT:ADDRESS[,ADDRESS…]` (curl's `CURLOPT_RESOLVE`;
  /// an IPv6 host or address in brackets), and returns the `host:port` it pins, lowercase.
  public static func checkResolve(_ entry: String) throws -> String {
    // Shown as given, each character outside printable ASCII as '?': the error is one line.
    let shown = String(
      entry.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    let invalid = CacheError(
      .invalidInput,
      "invalid --resolve '\(shown)' (expected HOST:PORT:ADDRESS, e.g. img.example:443:127.0.0.1)")
    let bytes = Array(entry.utf8)
    guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw invalid }
    // The host: up to the first ':' (past a bracketed IPv6 address).
    var index = 0
    if bytes.first == UInt8(ascii: "[") {
      guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { throw invalid }
      index = close + 1
    } else {
      index = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
    }
    guard index > 0, index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw invalid }
    let host = String(decoding: bytes[..<index], as: UTF8.self).lowercased()
    let rest = bytes[(index + 1)...]
    guard Self.isPinnableHost(host), let colon = rest.firstIndex(of: UInt8(ascii: ":")),
      let port = Checked.digits(String(decoding: rest[..<colon], as: UTF8.self)),
      (1...65_535).contains(port)
    else { throw invalid }
    let addresses = rest[(colon + 1)...].split(
      separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
    guard !addresses.isEmpty,
      addresses.allSatisfy({ Self.isAddressLiteral(String(decoding: $0, as: UTF8.self)) })
    else { throw invalid }
    return "\(host):\(port)"
  }

  /// Whether curl pins `host` as given: a name of letters, digits, '-', '_' and '.' that does
  /// not begin with a sign or a dot (curl reads a leading '+' or '-' as an instruction, and
  /// '*' as a wildcard that pins nothing by name), or a bracketed IPv6 address.
  static func isPinnableHost(_ host: String) -> Bool {
    if host.hasPrefix("[") {
      return host.hasSuffix("]") && isAddressLiteral(host)
    }
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
    guard let first = host.utf8.first, first != UInt8(ascii: "-"), first != UInt8(ascii: ".")
    else { return false }
    return host.utf8.allSatisfy(allowed.contains)
  }

  /// Whether `text` is an IPv4 address in dotted-quad form or an IPv6 address (bracketed or
  /// not), as `inet_pton` reads them.
  static func isAddressLiteral(_ text: String) -> Bool {
    var bare = Substring(text)
    if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
    var buffer = (UInt64(0), UInt64(0))
    return withUnsafeMutableBytes(of: &buffer) { raw in
      inet_pton(AF_INET, String(bare), raw.baseAddress) == 1
        || inet_pton(AF_INET6, String(bare), raw.baseAddress) == 1
    }
  }
}

/// The `--resolve` entries as the download loop holds them: one libcurl list per pinned
/// `host:port`, so a transfer loads only its own entry (libcurl parses every entry of the list
/// a transfer is given, at each transfer). Lives on the loop's thread; freed with it.
final class ResolveLists {
  private let api: imgcache_api
  private var lists = [String: UnsafeMutablePointer<curl_slist>]()

  /// The lists of `entries` (checked already by ``TransferOptions/checkResolve(_:)``; one
  /// that is not is left out).
  init(_ entries: [String], api: imgcache_api) {
    self.api = api
    for entry in entries {
      guard let key = try? TransferOptions.checkResolve(entry) else { continue }
      lists[key] = imgcache_slist_append(api, lists[key], entry)
    }
  }

  deinit { for list in lists.values { imgcache_slist_free_all(api, list) } }

  /// Whether no name is pinned.
  var isEmpty: Bool { lists.isEmpty }

  /// The list pinning `url`'s host and port, if any. The port is compared as a number, as
  /// libcurl reads it (`:080` is `:80`; an empty one is the scheme's).
  func list(for url: String) -> UnsafeMutablePointer<curl_slist>? {
    guard !lists.isEmpty else { return nil }
    let authority = URLText.host(of: url)
    let bracketEnd = authority.lastIndex(of: "]") ?? authority.startIndex
    let colon = authority[bracketEnd...].lastIndex(of: ":")
    let host = colon.map { authority[..<$0] } ?? authority[...]
    let digits = colon.map { authority[authority.index(after: $0)...] } ?? ""
    let scheme = url.lowercased().hasPrefix("https:") ? 443 : 80
    guard let port = digits.isEmpty ? Int64(scheme) : Checked.digits(digits) else { return nil }
    return lists["\(host):\(port)"]
  }
}
