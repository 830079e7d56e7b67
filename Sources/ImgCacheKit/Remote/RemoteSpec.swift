import Foundation

/// One backend of `remote_storage` (ccache 4's syntax): a URL and `|key=value` attributes.
///
/// - `redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]`, `redis+unix:/path/to/socket`
/// - `http://…`, `https://…`: a WebDAV or plain HTTP store (`layout=subdirs|flat`,
///   `bearer-token=…`, basic auth in the URL)
/// - `s3://BUCKET[/PREFIX]` with `endpoint=`, `region=`, and keys from the attributes or
///   `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`
///
/// and for all: `read-only`, `connect-timeout` (default 100 ms), `operation-timeout` (10 s),
/// `shards=a,b,c` (a `*` in the URL is replaced by each; keys spread by rendezvous hashing).
public struct RemoteSpec: Sendable, Equatable {
  /// The kind of store.
  public enum Kind: String, Sendable { case redis, http, s3 }

  public var kind: Kind
  /// The URL as written (credentials included: never printed; see ``display``).
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
  public var shards: [String]

  /// The attributes each kind accepts.
  static let knownAttributes: [Kind: Set<String>] = [
    .redis: [], .http: ["layout", "bearer-token"],
    .s3: ["endpoint", "region", "access-key", "secret-key", "session-token", "layout"],
  ]
  static let commonAttributes: Set<String> = [
    "read-only", "connect-timeout", "operation-timeout", "shards",
  ]

  /// Parses a `remote_storage` value: backends separated by spaces. Throws `.invalidInput`
  /// naming the backend (redacted) and what is wrong.
  public static func parseList(_ text: String) throws -> [RemoteSpec] {
    try text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { try parse(String($0)) }
  }

  /// Parses one backend.
  public static func parse(_ text: String) throws -> RemoteSpec {
    let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    let url = parts[0]
    let shown = RemoteSpec.redact(url)
    func bad(_ why: String) -> CacheError {
      CacheError(.invalidInput, "remote storage \(shown): \(why)")
    }
    let kind: Kind
    if url.hasPrefix("redis://") || url.hasPrefix("redis+unix:") {
      kind = .redis
    } else if url.hasPrefix("http://") || url.hasPrefix("https://") {
      kind = .http
    } else if url.hasPrefix("s3://") {
      kind = .s3
    } else {
      throw bad("unknown scheme (expected redis://, redis+unix:, http://, https:// or s3://)")
    }
    var attributes = [String: String]()
    for part in parts.dropFirst() where !part.isEmpty {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      let name = pair[0]
      guard commonAttributes.contains(name) || knownAttributes[kind, default: []].contains(name)
      else { throw bad("unknown attribute '\(name)'") }
      attributes[name] = pair.count == 2 ? pair[1] : "true"
    }
    if attributes.values.contains(where: { $0.containsControlCharacters }) {
      throw bad("an attribute has control characters")
    }
    var spec = RemoteSpec(
      kind: kind, url: url, attributes: attributes, readOnly: false, shards: [])
    switch attributes["read-only"]?.lowercased() {
    case nil, "false", "no", "0": break
    case "true", "yes", "1": spec.readOnly = true
    default: throw bad("read-only takes true or false")
    }
    for (name, path) in [
      ("connect-timeout", \RemoteSpec.connectTimeout), ("operation-timeout", \.operationTimeout),
    ] {
      guard let text = attributes[name] else { continue }
      guard let seconds = milliseconds(text), seconds > 0 else {
        throw bad("\(name) takes milliseconds or a duration, like 100 or 2s")
      }
      spec[keyPath: path] = seconds
    }
    if let shards = attributes["shards"] {
      spec.shards = shards.split(separator: ",").map(String.init)
      guard !spec.shards.isEmpty, url.contains("*") else {
        throw bad("shards= needs names and a * in the URL to replace")
      }
    }
    if let layout = attributes["layout"], layout != "subdirs" && layout != "flat" {
      throw bad("layout takes subdirs or flat")
    }
    return spec
  }

  /// ccache's unit (a bare number is milliseconds), or a duration with a unit.
  private static func milliseconds(_ text: String) -> TimeInterval? {
    if let count = Double(text) { return count / 1000 }
    if text.hasSuffix("ms"), let count = Double(text.dropLast(2)) { return count / 1000 }
    return PolicyValue.duration(text)
  }

  /// The URL of each server: one, or one per shard with `*` replaced.
  public var serverURLs: [(shard: String, url: String)] {
    shards.isEmpty
      ? [("", url)] : shards.map { ($0, url.replacingOccurrences(of: "*", with: $0)) }
  }

  /// The URL as printed: credentials as `***`; attributes that are secrets left out.
  public var display: String { Self.redact(url) }

  /// `url` with its userinfo as `***` (`redis://***@host:6379`): everything between the
  /// scheme and the last `@` before the query, so a password with an unencoded `/` is hidden too.
  public static func redact(_ url: String) -> String {
    guard let scheme = url.range(of: "://") else { return url }
    let rest = url[scheme.upperBound...]
    let beforeQuery = rest.prefix { $0 != "?" && $0 != "#" }
    guard let at = beforeQuery.lastIndex(of: "@") else { return url }
    return String(url[..<scheme.upperBound]) + "***" + String(rest[at...])
  }

  /// Attributes whose values are shown; every other value (a token, a key, a misspelt
  /// attribute that may hold one) is `***`.
  static let shownAttributes: Set<String> = [
    "read-only", "connect-timeout", "operation-timeout", "shards", "layout", "endpoint", "region",
  ]

  /// The whole value as printed by `config` and in errors: each backend redacted, attribute
  /// values other than ``shownAttributes`` as `***`.
  public static func redactList(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { backend in
      let parts = backend.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
      let attributes = parts.dropFirst().map { part -> String in
        let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
        guard pair.count == 2, !shownAttributes.contains(pair[0]) else { return part }
        return pair[0] + "=***"
      }
      return ([redact(parts[0])] + attributes).joined(separator: "|")
    }.joined(separator: " ")
  }
}
