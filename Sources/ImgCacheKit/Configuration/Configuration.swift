import FoundationEssentials
import Glibc

/// Every policy value imgcache reads, typed. The defaults are those of the component types
/// (``CleanPolicy``, ``TransferOptions``, ``DiskCache/defaultFailedTTL``, ``KeyFilter``,
/// ``FreshnessPolicy``, ``ResumePolicy``).
public struct Configuration: Sendable, Equatable {
  /// What `clean` enforces.
  public var clean = CleanPolicy()
  /// How the downloader talks to servers.
  public var transfer = TransferOptions()
  /// How long a failed request is not sent again.
  public var failedTTL = DiskCache.defaultFailedTTL
  /// How URLs become cache keys.
  public var keyFilter = KeyFilter.none
  /// Whether hits are judged by HTTP freshness; stale-if-error.
  public var freshness = FreshnessPolicy()
  /// When interrupted downloads are kept and resumed.
  public var resume = ResumePolicy()
  /// The remote tier's backends (`remote_storage`), in lookup order; none by default.
  public var remote = [RemoteSpec]()
  /// `remote_storage` as written (credentials included: shown only through its redaction).
  public var remoteStorage = ""
  /// What an original must fit before a variant is made from it.
  public var derivation = DerivationLimits()
  /// The variant presets (`variant.<name>`), by name.
  public var variants = [String: VariantSpec]()
  /// The presets as written.
  public var variantTexts = [String: String]()
  /// Whether robots.txt and `X-Robots-Tag` opt-outs are obeyed.
  public var robots = RobotsPolicy.ignore
  /// How a job's workers hold shards.
  public var fleet = FleetPolicy()
  /// The file each command appends a JSON line of its counters to (`stats_log`), if any.
  public var statsLog: String?

  /// The defaults.
  public init() {}
}

extension PolicyKey {
  /// Every key, in the order `--help` lists them.
  public static let all = fixedKeys + variantKeys

  /// The keys of the cache, the transfer and the remote tier.
  private static let fixedKeys: [PolicyKey] = [
    .duration(
      "max_age", "expire entries unused this long; never, 0: all", \.clean.maxAge,
      negativeIsNever: true),
    .size("max_size", "trim LRU entries above this size; 0: no limit", \.clean.maxSize),
    PolicyKey(
      name: "target", summary: "trim to strictly below target x limit",
      expected: "a fraction above 0 and at most 1, like 0.5",
      apply: { config, text in
        guard let value = Double(text), value > 0, value <= 1 else { return false }
        config.clean.target = value
        return true
      }, render: { "\($0.clean.target)" }),
    .integer(
      "max_entries", "trim LRU entries above this count; 0: no limit", \.clean.maxEntries,
      minimum: 0, maximum: Int(Int32.max)),
    .integer(
      "jobs", "transfers at once (at most 5000)", \.transfer.maxConcurrent, minimum: 1,
      maximum: TransferOptions.maxTransfers),
    .integer(
      "max_per_host", "transfers at once per host; 0: no own limit", \.transfer.maxPerHost,
      minimum: 0, maximum: TransferOptions.maxTransfers),
    .choice("order", "start order of queued transfers: fifo, lifo", \.transfer.order),
    .duration(
      "connect_timeout", "time allowed to connect", \.transfer.connectTimeout, positive: true),
    .duration(
      "timeout", "idle timeout: time without a byte received", \.transfer.idleTimeout,
      positive: true),
    .duration("max_time", "time a whole transfer may take; 0s: no limit", \.transfer.maxTime),
    .integer(
      "retry", "retries of network failures, 5xx, 408 and 429", \.transfer.retries, minimum: 0,
      maximum: 100),
    .duration("retry_delay", "first retry delay; doubles each retry", \.transfer.retryDelay),
    .rate(
      "rate_per_host", "requests started a second to one host; 0: none", \.transfer.ratePerHost),
    .rate("rate", "requests started a second over all hosts; 0: none", \.transfer.rate),
    .duration(
      "retry_after_max", "longest Retry-After honoured; longer: rate_limited",
      \.transfer.retryAfterMax),
    .integer(
      "throttle_limit", "a host's pauses in a row before its URLs fail; 0: never",
      \.transfer.throttleLimit, minimum: 0, maximum: 1_000),
    .choice("robots", "robots.txt and X-Robots-Tag opt-outs: ignore or obey", \.robots),
    .duration("failed_ttl", "how long a failed request is not sent again", \.failedTTL),
    .size("max_filesize", "largest body accepted", \.transfer.maxBodySize),
    .duration(
      "job_lease", "a job worker's hold on a shard, renewed every third", \.fleet.lease,
      positive: true),
    .integer(
      "max_deliveries", "deliveries of a job's shard before it is dead", \.fleet.maxDeliveries,
      minimum: 1, maximum: 1_000),
    .choice(
      "coalesce", "one download per URL: machine, or fleet (a Redis lock per key)",
      \.fleet.coalesce),
    .integer(
      "max_redirs", "redirects followed", \.transfer.maxRedirects, minimum: 0, maximum: 1_000),
    PolicyKey(
      name: "user_agent", summary: "User-Agent header",
      expected: "a value without control characters",
      apply: { config, text in
        guard !text.containsControlCharacters else { return false }
        config.transfer.userAgent = text
        return true
      }, render: { $0.transfer.userAgent }),
    .text("cacert", "CA bundle to verify servers with", \.transfer.caFile),
    .boolean("insecure", "skip TLS verification (warns)", \.transfer.insecure),
    .boolean("netrc", "read credentials from ~/.netrc", \.transfer.useNetrc),
    .text("cookie_jar", "file cookies are read from and written to", \.transfer.cookieJar),
    .text("stats_log", "file each run appends a JSON line of its counters to", \.statsLog),
    .choice("key_filter", "cache key filter: none or strip-query", \.keyFilter),
    .choice(
      "freshness", "never, or http: revalidate entries when stale",
      \.freshness.mode),
    .duration(
      "heuristic_max", "longest lifetime guessed from Last-Modified",
      \.freshness.heuristicMax),
    PolicyKey(
      name: "stale_if_error", summary: "serve copies this stale when the origin fails",
      expected: "a duration like 1h or 7d, 0s (off) or any",
      apply: { config, text in
        if text.lowercased() == "any" {
          config.freshness.staleIfError = FreshnessPolicy.anyAge
          return true
        }
        guard let value = PolicyValue.duration(text), value >= 0 else { return false }
        config.freshness.staleIfError = value
        return true
      },
      render: {
        $0.freshness.staleIfError >= FreshnessPolicy.anyAge
          ? "any" : PolicyValue.text(duration: $0.freshness.staleIfError)
      }),
    .size(
      "resume_min_size", "smallest interrupted body kept to resume", \.resume.minimumSize),
    .duration(
      "resume_max_age", "how long an interrupted body is kept to resume", \.resume.maxAge),
    PolicyKey(
      name: "remote_storage", summary: "shared remote tier: redis://, http(s)://, s3:// URLs",
      expected: "space-separated backend URLs with |attribute=value (see the README)",
      apply: { config, text in
        // Its own message (which attribute, which backend, redacted) says more than the form.
        config.remote = try RemoteSpec.parseList(text)
        config.remoteStorage = text
        return true
      }, render: { RemoteSpec.redactList($0.remoteStorage) }, redact: RemoteSpec.redactList,
      flagName: "--remote"),
  ]

}

/// A configuration resolved from its sources, with where each value came from.
public struct ResolvedConfiguration: Sendable {
  /// The typed values.
  public var configuration = Configuration()
  /// Each key's text and origin (`default`, a variable, `file:line`, a flag).
  public var values: [PolicyKey: (text: String, origin: String)] = [:]
  /// Every key: the fixed ones, then the variant presets set, by name.
  public var keys: [PolicyKey] {
    PolicyKey.all + values.keys.filter(\.isPreset).sorted { $0.name < $1.name }
  }

  /// Resolves every key with the precedence of docs/design.md, Command line: `flags` >
  /// `IMGCACHE_*` in `environment` > `cacheFile` > `userFile` > defaults. A missing file is
  /// skipped unless `userFileRequired`; a bad line or value is an `.invalidInput` error naming
  /// its origin.
  public init(
    flags: [PolicyKey: String], environment: [String: String], cacheFile: String?,
    userFile: String?, userFileRequired: Bool
  ) throws {
    // Only what is set is applied: the defaults are `Configuration()`'s own, and rendering
    // every key's default to text to parse it back cost each start a few hundred thousand
    // instructions (docs/architecture.md, Start-up; `PolicyDefaultsTests`).
    if let userFile { try read(file: userFile, required: userFileRequired) }
    if let cacheFile { try read(file: cacheFile, required: false) }
    for key in PolicyKey.all {
      if let text = environment[key.environmentName] { values[key] = (text, key.environmentName) }
    }
    for (key, text) in flags { values[key] = (text, key.flag) }
    for key in keys {
      guard let (text, origin) = values[key] else { continue }
      let applied: Bool
      do { applied = try key.apply(&configuration, text) } catch let error as CacheError {
        throw CacheError(.invalidInput, "\(error.detail) (in \(origin))")
      }
      guard applied else {
        throw CacheError(
          .invalidInput,
          "invalid \(key.name) '\(key.redact(text))' in \(origin) (expected \(key.expected))")
      }
    }
  }

  /// The text of `key` and where it came from (`default` when nothing set it).
  public func value(of key: PolicyKey) -> (text: String, origin: String) {
    let (text, origin) = values[key] ?? (key.defaultText, "default")
    return (key.redact(text), origin)
  }

  /// Refuses a policy file another user could have written (ssh's StrictModes): it can turn
  /// TLS verification off or point the cookie jar anywhere.
  static func checkTrust(_ path: String) throws {
    var info = stat()
    guard stat(path, &info) == 0 else { return }
    if info.st_uid != geteuid() && info.st_uid != 0 {
      throw CacheError(
        .invalidInput,
        "refusing config file \(path): owned by another user (uid \(info.st_uid)); "
          + "it could change how imgcache verifies servers")
    }
    if info.st_mode & 0o022 != 0 {
      throw CacheError(
        .invalidInput,
        "refusing config file \(path): writable by group or others (mode "
          + String(info.st_mode & 0o777, radix: 8) + "); run chmod go-w on it")
    }
  }

  private mutating func read(file path: String, required: Bool) throws {
    guard let bytes = try ConfigFile.contents(of: path, failing: .invalidInput) else {
      if required { throw CacheError(.invalidInput, "cannot read config file \(path)") }
      return
    }
    try Self.checkTrust(path)
    let text = String(decoding: bytes, as: UTF8.self)
    for (index, line) in ConfigFile.lines(of: text).enumerated() {
      let origin = "\(path):\(index + 1)"
      let (name, value): (String, String)
      switch ConfigFile.parse(line) {
      case .blank: continue
      case .malformed(let content):
        throw CacheError(.invalidInput, "\(origin): expected 'key = value', got '\(content)'")
      case .assignment(let key, let text): (name, value) = (key, text)
      }
      guard value.isSingleLine else {
        throw CacheError(
          .invalidInput,
          "\(origin): the value of '\(name)' holds a control character or a line break")
      }
      guard let key = PolicyKey.named(name) else {
        throw CacheError(.invalidInput, "\(origin): unknown key '\(name)'")
      }
      values[key] = (value, origin)
    }
  }
}
