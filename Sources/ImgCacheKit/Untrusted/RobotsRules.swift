import FoundationEssentials

/// The rules a robots.txt sets for one product token (RFC 9309; docs/design.md, Politeness):
/// the `allow` and `disallow` lines of the groups that name the token, else of the `*` groups.
/// Parsed from untrusted bytes: at most ``parsedLimit`` bytes are read, a malformed line is
/// skipped, nothing traps or loops on hostile input.
public struct RobotsRules: Sendable, Equatable {
  /// One `allow` or `disallow` line.
  public struct Rule: Sendable, Equatable {
    /// Whether the line allows (else disallows) what its pattern matches.
    public var allows: Bool
    /// The path pattern, normalized (``RobotsRules/normalized(_:)``): `*` matches any run of
    /// characters, a final `$` the end of the path.
    public let pattern: String
    /// The pattern compiled.
    let compiled: RobotsPattern

    /// A rule that allows (or disallows) what `pattern` (normalized) matches.
    public init(allows: Bool, pattern: String) {
      (self.allows, self.pattern, compiled) = (allows, pattern, RobotsPattern(pattern))
    }

    /// The rule as a robots.txt line, for a message.
    public var line: String { (allows ? "Allow: " : "Disallow: ") + pattern }
  }

  /// The rules, in the file's order.
  public var rules: [Rule]

  /// Creates rules from `rules` (their patterns normalized already).
  public init(rules: [Rule]) { self.rules = rules }

  /// Everything allowed: no rules (a robots.txt answered 4xx, or naming no group for us).
  public static let allowAll = RobotsRules(rules: [])
  /// Everything disallowed (a robots.txt answered 5xx, or unreachable).
  public static let disallowAll = RobotsRules(rules: [Rule(allows: false, pattern: "/")])

  /// The bytes of a robots.txt read (RFC 9309 §2.5 asks for at least 500 KiB); the rest is
  /// ignored.
  public static let parsedLimit = 512 * 1024
  /// The longest pattern kept: a longer one is no path a URL here can have.
  static let longestPattern = 4096

  /// The rules of `text` (a robots.txt body) for `agent` (a product token, matched without
  /// regard to case).
  public static func parse(_ text: some Collection<UInt8>, agent: String) -> RobotsRules {
    let agent = agent.lowercased()
    var ours = [Rule]()
    var everyone = [Rule]()
    var named = false
    // The agents of the group being read; a rule after a user-agent line ends the list.
    var group = (ours: false, everyone: false, closed: true)
    var read = Array(text.prefix(parsedLimit))[...]
    // A UTF-8 byte-order mark is no part of the first field's name.
    if read.starts(with: [0xEF, 0xBB, 0xBF]) { read = read.dropFirst(3) }
    for line in lines(of: read) {
      guard let (field, value) = field(of: line) else { continue }
      switch field {
      case "user-agent":
        if group.closed { group = (false, false, false) }
        let token = productToken(value)
        if token == "*" {
          group.everyone = true
        } else if token == agent {
          group.ours = true
          named = true
        }
      case "allow", "disallow":
        group.closed = true
        guard let pattern = normalized(pattern: value) else { continue }
        let rule = Rule(allows: field == "allow", pattern: pattern)
        if group.ours { ours.append(rule) }
        if group.everyone { everyone.append(rule) }
      default:
        // sitemap, crawl-delay, host, …: not rules; they do not end a group's agents either.
        continue
      }
    }
    return RobotsRules(rules: named ? ours : everyone)
  }

  /// The rule that decides `path` (a URL's path and query, as sent), nil when none matches
  /// (allowed). The longest pattern wins; between two as long, the one that allows (§2.2.2).
  /// `/robots.txt` itself is always allowed.
  public func deciding(_ path: String) -> Rule? {
    let target = Array(Self.normalized(path.isEmpty ? "/" : path).utf8)
    if target.elementsEqual("/robots.txt".utf8) { return nil }
    var best: Rule?
    var bestLength = -1
    for rule in rules {
      let length = rule.pattern.utf8.count
      guard length > bestLength || (length == bestLength && rule.allows && best?.allows == false)
      else { continue }
      if rule.compiled.matches(target) {
        (best, bestLength) = (rule, length)
      }
    }
    return best
  }

  /// Whether `path` is allowed.
  public func allows(_ path: String) -> Bool { deciding(path)?.allows ?? true }
}

extension RobotsRules {
  /// The lines of `text`, split at CR, LF or CRLF, each without its comment.
  static func lines(of text: some Collection<UInt8>) -> [ArraySlice<UInt8>] {
    var result = [ArraySlice<UInt8>]()
    let bytes = Array(text)
    var start = 0
    for index in bytes.indices where bytes[index] == 0x0A || bytes[index] == 0x0D {
      result.append(bytes[start..<index])
      start = index + 1
    }
    result.append(bytes[start...])
    return result.map { line in
      line.firstIndex(of: UInt8(ascii: "#")).map { line[line.startIndex..<$0] } ?? line
    }
  }

  /// A line's field name (lowercase) and value, both trimmed; nil without a colon, with a
  /// control character, or with a value that is not UTF-8.
  static func field(of line: ArraySlice<UInt8>) -> (String, String)? {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
    func trimmed(_ part: ArraySlice<UInt8>) -> String? {
      guard !part.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else { return nil }
      guard let text = String(validating: part, as: UTF8.self) else { return nil }
      return text.trimmingWhitespace()
    }
    guard let name = trimmed(line[line.startIndex..<colon]),
      let value = trimmed(line[(colon + 1)...])
    else { return nil }
    return (name.lowercased(), value)
  }

  /// The product token a user-agent line names: its leading letters, `_` and `-`, lowercase
  /// (`imgcache/2.0` names `imgcache`); `*` for everyone (a `*` alone).
  static func productToken(_ value: String) -> String {
    if value == "*" { return "*" }
    return String(
      value.prefix { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }.lowercased())
  }

  /// A rule's pattern, normalized; nil for an empty one (no rule) or one that is no path.
  static func normalized(pattern value: String) -> String? {
    guard let first = value.first, first == "/" || first == "*" else { return nil }
    var pattern = normalized(value)
    // Runs of `*` match what one does; fewer stars, less matching work.
    while pattern.contains("**") { pattern = pattern.replacing("**", with: "*") }
    return pattern.utf8.count <= longestPattern ? pattern : nil
  }

  /// `text` with one spelling per character (§2.2.2): every octet outside US-ASCII and every
  /// space percent-encoded, a percent-encoded unreserved character decoded, and the hex digits
  /// of what stays encoded upper case.
  static func normalized(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count)
    let hex = Array("0123456789ABCDEF".utf8)
    func encode(_ byte: UInt8) {
      out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
    }
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2])
      {
        let decoded = high << 4 | low
        if isUnreserved(decoded) { out.append(decoded) } else { encode(decoded) }
        index += 3
        continue
      }
      if byte >= 0x80 || byte <= 0x20 { encode(byte) } else { out.append(byte) }
      index += 1
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default: false
    }
  }
}

extension RobotsRules {
  /// The rules as kept in the index: one line each, `A` or `D` and the pattern.
  public var encoded: String {
    rules.map { ($0.allows ? "A" : "D") + $0.pattern }.joined(separator: "\n")
  }

  /// The rules `encoded` keeps; nil when a line is not one (a damaged row is asked again).
  public init?(encoded: String) {
    var rules = [Rule]()
    for line in encoded.split(separator: "\n") {
      guard let kind = line.first, kind == "A" || kind == "D",
        let pattern = Self.normalized(pattern: String(line.dropFirst()))
      else { return nil }
      rules.append(Rule(allows: kind == "A", pattern: pattern))
    }
    self.init(rules: rules)
  }
}
