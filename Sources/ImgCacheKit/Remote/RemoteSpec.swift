import FoundationEssentials

/// One backend of `remote_storage` (ccache 4's syntax): a URL and `|key=value` attributes.
///
/// - `redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]`, `redis+unix:/path/to/socket`
/// - `http://…`, `https://…`: a WebDAV or plain HTTP store (`layout=subdirs|flat`,
///   `bearer-token=…`, basic auth in the URL)
/// - `s3://BUCKET[/PREFIX]` with `endpoint=`, `region=`, and keys from the attributes or
///   `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`
///
/// and for all: `read-only`, `connect-timeout` (default 100 ms), `operation-timeout` (10 s),
/// `servers=a,b,c` (a `*` in the URL is replaced by each; keys spread by rendezvous hashing;
/// `shards=` is its old spelling).
public struct RemoteSpec: Sendable, Equatable {
  /// The kind of store.
  public enum Kind: String, Sendable { case redis, http, s3 }

  public var kind: Kind
  /// The URL as written (credentials included: never printed; see ``display``), without its
  /// attributes.
  public var url: String
  /// The attributes as written (`read-only` alone is `read-only=true`).
  public var attributes: [String: String]
  /// Whether nothing is ever written to it.
  public var readOnly: Bool
  /// Time allowed to connect. 100 ms.
  public var connectTimeout: TimeInterval = 0.1
  /// Time an operation may take. 10 s.
  public var operationTimeout: TimeInterval = 10
  /// Shard names that replace `*` in the URL; empty: one server.
  public var servers: [String]
  /// How the backend is shown (``display``).
  public var label = ""

  /// The attributes each kind accepts.
  static let knownAttributes: [Kind: Set<String>] = [
    .redis: [], .http: ["layout", "bearer-token"],
    .s3: ["endpoint", "region", "access-key", "secret-key", "session-token", "layout"],
  ]
  static let commonAttributes: Set<String> = [
    "read-only", "connect-timeout", "operation-timeout", "servers", "shards",
  ]

  /// Parses a `remote_storage` value: backends separated by spaces. Throws `.invalidInput`
  /// naming the backend (by its label, or its number while it cannot be parsed) and what is
  /// wrong; the text itself is never printed, since it may hold a password.
  public static func parseList(_ text: String) throws -> [RemoteSpec] {
    let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    // First, whether each is a backend at all: a space in a password splits one in two.
    for (index, token) in tokens.enumerated() where !schemes.contains(where: token.hasPrefix) {
      throw CacheError(
        .invalidInput,
        "remote storage backend \(index + 1) is not a backend URL (redis://, redis+unix:, "
          + "http://, https:// or s3://); a space in a password must be percent-encoded as %20")
    }
    return try tokens.enumerated().map { try parse(String($1), number: $0 + 1) }
  }

  /// The prefixes a backend starts with.
  package static let schemes = ["redis://", "redis+unix:", "http://", "https://", "s3://"]

  /// Parses one backend, number `number` of its list.
  public static func parse(_ text: String, number: Int = 1) throws -> RemoteSpec {
    let address = try BackendAddress(text, number: number)
    // Errors name the backend by its number: until the whole list is parsed, a token may be
    // half of a password that holds a space (`redis://:first half@host`), label included.
    let shown = "backend \(number)"
    let bad = { (why: String) in CacheError(.invalidInput, "remote storage \(shown): \(why)") }
    let scheme = try Self.kind(of: address.url, number: number)
    let given = try Self.attributes(address.attributes, kind: scheme, bad: bad)
    var spec = RemoteSpec(
      kind: scheme, url: address.url, attributes: given, readOnly: false, servers: [])
    spec.label = address.label
    try spec.take(given, bad: bad)
    try spec.checkAuthorities(shown: shown, bad: bad)
    return spec
  }

  /// The kind of backend `url` names, by its scheme.
  private static func kind(of url: String, number: Int) throws -> Kind {
    if url.hasPrefix("redis://") || url.hasPrefix("redis+unix:") { return .redis }
    if url.hasPrefix("http://") || url.hasPrefix("https://") { return .http }
    if url.hasPrefix("s3://") { return .s3 }
    throw CacheError(
      .invalidInput,
      "remote storage backend \(number): unknown scheme (expected redis://, redis+unix:, "
        + "http://, https:// or s3://)")
  }

  /// The `|name=value` attributes of a backend of `kind`, each known to it (a name alone is
  /// `true`).
  private static func attributes(
    _ parts: [Substring], kind: Kind, bad: (String) -> CacheError
  ) throws -> [String: String] {
    var attributes = [String: String]()
    for part in parts where !part.isEmpty {
      let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        .map(String.init)
      let name = pair[0]
      guard commonAttributes.contains(name) || knownAttributes[kind, default: []].contains(name)
      else {
        // Not shown: a value without its name (`|s3cr3t`) would be a name.
        let accepted = (commonAttributes.union(knownAttributes[kind, default: []])).sorted()
        throw bad("unknown attribute (\(kind.rawValue) takes \(accepted.joined(separator: ", ")))")
      }
      attributes[name] = pair.count == 2 ? pair[1] : "true"
    }
    return attributes
  }

  /// Takes the attributes' values (read-only, timeouts, servers, layout), each checked.
  private mutating func take(_ attributes: [String: String], bad: (String) -> CacheError) throws {
    switch attributes["read-only"]?.lowercased() {
    case nil, "false", "no", "0": break
    case "true", "yes", "1": readOnly = true
    default: throw bad("read-only takes true or false")
    }
    for (name, path) in [
      ("connect-timeout", \RemoteSpec.connectTimeout), ("operation-timeout", \.operationTimeout),
    ] {
      guard let text = attributes[name] else { continue }
      guard let seconds = BackendAddress.timeout(text) else {
        throw bad(
          "\(name) takes milliseconds or a duration above 0 and at most 1h, like 100 or 2s")
      }
      self[keyPath: path] = seconds
    }
    // `shards=` is the old spelling of `servers=`.
    if attributes["servers"] != nil && attributes["shards"] != nil {
      throw bad("servers= and shards= (its old spelling) given both")
    }
    if let given = attributes["servers"] ?? attributes["shards"] {
      let names = given.split(separator: ",", omittingEmptySubsequences: false)
      guard !names.isEmpty, url.contains("*") else {
        throw bad("servers= needs names and a * in the URL to replace")
      }
      guard names.allSatisfy(BackendAddress.isValidServerName) else {
        throw bad("a server name may hold letters, digits and . - _ ~ : [ ] only")
      }
      self.servers = names.map(String.init)
    }
    if let layout = attributes["layout"], layout != "subdirs" && layout != "flat" {
      throw bad("layout takes subdirs or flat")
    }
  }

  /// Checks the authority of every server (an S3 backend's endpoint's).
  private func checkAuthorities(shown: String, bad: (String) -> CacheError) throws {
    if kind != .s3 {
      for (_, server) in serverURLs {
        try BackendAddress.checkAuthority(server, shown: shown)
      }
    } else if let endpoint = attributes["endpoint"] {
      guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
        throw bad("endpoint must be an http:// or https:// URL")
      }
      try BackendAddress.checkAuthority(endpoint, shown: shown)
    }
  }

  /// The URL of each server: one, or one per name of `servers=` with `*` replaced.
  public var serverURLs: [(name: String, url: String)] {
    servers.isEmpty
      ? [("", url)] : servers.map { ($0, url.replacing("*", with: $0)) }
  }

  /// The backend as printed, and the name its counters are kept under:
  /// `scheme://[***@]host[:port]/path`, never a userinfo, a query or an attribute.
  public var display: String { label }

  /// The label of one of its server URLs: the same parts as ``display``.
  package func label(of serverURL: String) -> String {
    (try? BackendAddress(serverURL, number: 1).label) ?? label
  }

  /// Attributes whose values are shown; every other value (a token, a key, a misspelt
  /// attribute that may hold one) is `***`.
  static let shownAttributes: Set<String> = [
    "read-only", "connect-timeout", "operation-timeout", "servers", "shards", "layout", "endpoint",
    "region",
  ]

  /// The backend with its attributes as printed by `config`: secret values as `***`.
  public var displayWithAttributes: String {
    let shown = attributes.keys.sorted().map { name -> String in
      let value = attributes[name] ?? ""
      return name + "=" + (Self.shownAttributes.contains(name) ? value : "***")
    }
    return ([label] + shown).joined(separator: "|")
  }

  /// The whole value as printed by `config` and in errors: each backend by
  /// ``displayWithAttributes``; a backend that cannot be parsed as `***` (its text may be
  /// part of a password that holds a space).
  public static func redactList(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\t" }).enumerated().map { index, token in
      (try? parse(String(token), number: index + 1))?.displayWithAttributes ?? "***"
    }.joined(separator: " ")
  }
}

extension RemoteSpec {
  /// Where the secrets are in a `remote_storage` value as written (UTF-8 offsets): each
  /// backend's userinfo (from `://` to its last `@`) and the values of attributes not in
  /// ``shownAttributes`` — what the command line blanks once it is parsed.
  public static func secretRanges(in bytes: [UInt8]) -> [Range<Int>] {
    var ranges = [Range<Int>]()
    var start = 0
    while start < bytes.count {
      var end = start
      while end < bytes.count && bytes[end] != 0x20 && bytes[end] != 0x09 { end += 1 }
      ranges += secretRanges(inToken: bytes[start..<end])
      start = end + 1
    }
    return ranges
  }

  private static func secretRanges(inToken token: ArraySlice<UInt8>) -> [Range<Int>] {
    var ranges = [Range<Int>]()
    var userinfoStart = token.startIndex
    let scheme = Array("://".utf8)
    if let index = token.indices.first(where: { token[$0...].starts(with: scheme) }) {
      userinfoStart = index + scheme.count
    }
    var rest = token.startIndex
    if let at = token.lastIndex(of: UInt8(ascii: "@")), at >= userinfoStart {
      ranges.append(userinfoStart..<at)
      rest = at + 1
    }
    let parts = token[rest...].split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
    for part in parts.dropFirst() {
      guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
      let name = String(decoding: part[..<equals], as: UTF8.self)
      if !shownAttributes.contains(name) { ranges.append((equals + 1)..<part.endIndex) }
    }
    return ranges
  }
}
