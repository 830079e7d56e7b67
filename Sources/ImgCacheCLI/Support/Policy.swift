import Foundation
import ImgCacheKit

/// A usage or configuration error: exits 2 with one line naming the culprit.
struct UsageError: Error {
  var message: String
}

/// Every policy key, its default and what it means (listed in the README and `--help`).
enum PolicyKey: String, CaseIterable {
  case maxAge = "max_age"
  case maxSize = "max_size"
  case target
  case maxEntries = "max_entries"
  case jobs
  case maxPerHost = "max_per_host"
  case order
  case connectTimeout = "connect_timeout"
  case timeout
  case maxTime = "max_time"
  case retry
  case retryDelay = "retry_delay"
  case failedTTL = "failed_ttl"
  case maxFilesize = "max_filesize"
  case maxRedirs = "max_redirs"
  case userAgent = "user_agent"
  case cacert
  case insecure
  case netrc
  case cookieJar = "cookie_jar"
  case keyFilter = "key_filter"

  /// The built-in default, as a user would write it.
  var defaultValue: String {
    switch self {
    case .maxAge: return "7d"
    case .maxSize: return "0"
    case .target: return "0.5"
    case .maxEntries: return "0"
    case .jobs: return "6"
    case .maxPerHost: return "0"
    case .order: return "fifo"
    case .connectTimeout, .timeout: return "15s"
    case .maxTime: return "0s"
    case .retry: return "2"
    case .retryDelay: return "1s"
    case .failedTTL: return "1d"
    case .maxFilesize: return "100M"
    case .maxRedirs: return "10"
    case .userAgent: return "imgcache/\(ImgCacheVersion.current)"
    case .cacert, .cookieJar: return ""
    case .insecure, .netrc: return "false"
    case .keyFilter: return "none"
    }
  }

  /// The environment variable that sets the key.
  var environmentName: String { "IMGCACHE_" + rawValue.uppercased() }

  /// One line of documentation.
  var summary: String {
    switch self {
    case .maxAge: return "expire entries unused this long; never, 0: all"
    case .maxSize: return "trim LRU entries above this size; 0: no limit"
    case .target: return "trim to strictly below target x limit"
    case .maxEntries: return "trim LRU entries above this count; 0: no limit"
    case .jobs: return "transfers at once"
    case .maxPerHost: return "transfers at once per host; 0: no own limit"
    case .order: return "start order of queued transfers: fifo, lifo"
    case .connectTimeout: return "time allowed to connect"
    case .timeout: return "idle timeout: time without a byte received"
    case .maxTime: return "time a whole transfer may take; 0s: no limit"
    case .retry: return "retries of network failures, 5xx and 429"
    case .retryDelay: return "first retry delay; doubles each retry"
    case .failedTTL: return "how long a failed URL is not requested again"
    case .maxFilesize: return "largest body accepted"
    case .maxRedirs: return "redirects followed"
    case .userAgent: return "User-Agent header"
    case .cacert: return "CA bundle to verify servers with"
    case .insecure: return "skip TLS verification (warns)"
    case .netrc: return "read credentials from ~/.netrc"
    case .cookieJar: return "file cookies are read from and written to"
    case .keyFilter: return "cache key filter: none or strip-query"
    }
  }
}

/// The effective policy: each key's value and where it came from (flag, variable, file:line,
/// default), resolved with DESIGN.md §4's precedence.
struct Policy {
  struct Value {
    var text: String
    var origin: String
  }

  private(set) var values: [PolicyKey: Value] = [:]

  /// Resolves every key: `flags` > `IMGCACHE_*` > `cacheFile` > `userFile` > defaults.
  init(
    flags: [PolicyKey: (String, String)], environment: [String: String], cacheFile: String?,
    userFile: String?, userFileRequired: Bool
  ) throws {
    for key in PolicyKey.allCases { values[key] = Value(text: key.defaultValue, origin: "default") }
    if let userFile { try apply(file: userFile, required: userFileRequired) }
    if let cacheFile { try apply(file: cacheFile, required: false) }
    for key in PolicyKey.allCases {
      if let value = environment[key.environmentName] {
        values[key] = Value(text: value, origin: key.environmentName)
      }
    }
    for (key, (value, flag)) in flags { values[key] = Value(text: value, origin: flag) }
    try validateAll()
  }

  private mutating func apply(file path: String, required: Bool) throws {
    guard let data = FileManager.default.contents(atPath: path) else {
      if required || FileManager.default.fileExists(atPath: path) {
        throw UsageError(message: "cannot read config file \(path)")
      }
      return
    }
    let text = String(decoding: data, as: UTF8.self)
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let line =
        rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        .first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
      if line.isEmpty { continue }
      let origin = "\(path):\(index + 1)"
      guard let equals = line.firstIndex(of: "=") else {
        throw UsageError(message: "\(origin): expected 'key = value', got '\(line)'")
      }
      let name = line[..<equals].trimmingCharacters(in: .whitespaces)
      let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard let key = PolicyKey(rawValue: name) else {
        throw UsageError(message: "\(origin): unknown key '\(name)'")
      }
      values[key] = Value(text: value, origin: origin)
    }
  }

  /// Parses every value once so a bad one fails early, whatever the command uses.
  private func validateAll() throws {
    _ = try cleanPolicy()
    _ = try transferOptions()
    _ = try failedTTL()
    _ = try keyFilter()
  }

  private func value(_ key: PolicyKey) -> Value {
    values[key] ?? Value(text: key.defaultValue, origin: "default")
  }

  private func invalid(_ key: PolicyKey, _ expected: String) -> UsageError {
    let v = value(key)
    return UsageError(
      message: "invalid \(key.rawValue) '\(v.text)' in \(v.origin) (expected \(expected))")
  }

  func size(_ key: PolicyKey) throws -> Int64 {
    guard let size = Units.size(value(key).text) else {
      throw invalid(key, "a size like 500K, 20M, 1.5G")
    }
    return size
  }

  func duration(_ key: PolicyKey, allowNegative: Bool = false) throws -> TimeInterval {
    let text = value(key).text
    if allowNegative && (text == "never" || text == "-1") { return -1 }
    guard let seconds = Units.duration(text), allowNegative || seconds >= 0 else {
      throw invalid(key, "a duration with a unit like 90s, 30m, 12h, 7d, 2w")
    }
    return seconds
  }

  func integer(_ key: PolicyKey, minimum: Int) throws -> Int {
    guard let number = Int(value(key).text), number >= minimum else {
      throw invalid(key, "a whole number of at least \(minimum)")
    }
    return number
  }

  func boolean(_ key: PolicyKey) throws -> Bool {
    switch value(key).text.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: throw invalid(key, "true or false")
    }
  }

  func string(_ key: PolicyKey) -> String? {
    let text = value(key).text
    return text.isEmpty ? nil : text
  }

  /// The clean limits.
  func cleanPolicy() throws -> CleanPolicy {
    var policy = CleanPolicy()
    policy.maxAge = try duration(.maxAge, allowNegative: true)
    policy.maxSize = try size(.maxSize)
    policy.maxEntries = try integer(.maxEntries, minimum: 0)
    guard let target = Double(value(.target).text), target > 0, target <= 1 else {
      throw invalid(.target, "a fraction above 0 and at most 1, like 0.5")
    }
    policy.target = target
    return policy
  }

  /// The downloader's configuration.
  func transferOptions() throws -> TransferOptions {
    var options = TransferOptions()
    options.maxConcurrent = try integer(.jobs, minimum: 1)
    options.maxPerHost = try integer(.maxPerHost, minimum: 0)
    guard let order = TransferOptions.Order(rawValue: value(.order).text.lowercased()) else {
      throw invalid(.order, "fifo or lifo")
    }
    options.order = order
    options.connectTimeout = try duration(.connectTimeout)
    options.idleTimeout = try duration(.timeout)
    options.maxTime = try duration(.maxTime)
    options.retries = try integer(.retry, minimum: 0)
    options.retryDelay = try duration(.retryDelay)
    options.maxBodySize = try size(.maxFilesize)
    options.maxRedirects = try integer(.maxRedirs, minimum: 0)
    options.userAgent = value(.userAgent).text
    options.caFile = string(.cacert)
    options.insecure = try boolean(.insecure)
    options.useNetrc = try boolean(.netrc)
    options.cookieJar = string(.cookieJar)
    if options.connectTimeout <= 0 { throw invalid(.connectTimeout, "a positive duration") }
    if options.idleTimeout <= 0 { throw invalid(.timeout, "a positive duration") }
    return options
  }

  func failedTTL() throws -> TimeInterval { try duration(.failedTTL) }

  func keyFilter() throws -> KeyFilter {
    guard let filter = KeyFilter(rawValue: value(.keyFilter).text) else {
      throw invalid(.keyFilter, "none or strip-query")
    }
    return filter
  }

  /// The documentation of every key, for `--help`.
  static var documentation: String {
    let lines = PolicyKey.allCases.map { key in
      let name = key.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
      let value =
        (key == .userAgent ? "imgcache/V" : key.defaultValue.isEmpty ? "-" : key.defaultValue)
        .padding(toLength: 10, withPad: " ", startingAt: 0)
      return "  \(name)\(value) \(key.summary)"
    }
    return """
      POLICY (key, default, meaning). Set as flags, IMGCACHE_<KEY> variables, or 'key = value' \
      lines in $DIR/imgcache.conf or $XDG_CONFIG_HOME/imgcache/config, in that order of \
      precedence. Sizes: 500K, 20M, 1.5G (1024^n), 10KB (1000^n); durations: 90s, 30m, 12h, 7d, 2w.

      """ + lines.joined(separator: "\n")
  }
}
