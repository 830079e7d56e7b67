import ArgumentParser
import ImgCacheKit

/// How `fetch` and `prefetch` talk to servers; each flag beats the policy files.
struct TransferFlags: ParsableArguments {
  @Option(
    name: [.customShort("H"), .long], help: "Extra request header 'Name: value' (repeatable).")
  var header: [String] = []
  @Option(
    name: .long, help: "Pin HOST:PORT to ADDRESS, as curl's --resolve (repeatable).")
  var resolve: [String] = []
  @Option(name: [.customShort("u"), .long], help: "user:password for HTTP basic authentication.")
  var user: String?
  @Flag(name: .long, help: "Read credentials from ~/.netrc.")
  var netrc = false
  @Option(name: .long, help: "Read and write cookies in this file.", completion: .file())
  var cookieJar: String?
  @Flag(name: [.customShort("k"), .long], help: "Do not verify TLS certificates (warns).")
  var insecure = false
  @Option(name: .long, help: "Verify servers with this CA bundle.", completion: .file())
  var cacert: String?
  @Option(name: .long, help: "Time allowed to connect, e.g. 15s.")
  var connectTimeout: String?
  @Option(name: .long, help: "Idle timeout: time without a byte, e.g. 15s.")
  var timeout: String?
  @Option(name: [.customShort("m"), .long], help: "Time a whole transfer may take, e.g. 2m.")
  var maxTime: String?
  @Option(name: .long, help: "Largest body accepted, e.g. 100M.")
  var maxFilesize: String?
  @Option(name: .long, help: "Retries of transient failures.")
  var retry: String?
  @Option(name: .long, help: "Requests started a second over all hosts, e.g. 10/s, 600/m.")
  var rate: String?
  @Option(name: .long, help: "Requests started a second to each host, e.g. 2/s.")
  var ratePerHost: String?
  @Option(name: [.customShort("A"), .long], help: "User-Agent header.")
  var userAgent: String?
  @Option(name: .long, help: "How long a failed URL is not requested again, e.g. 1d.")
  var failedTTL: String?

  /// The policy values these flags set.
  var policyFlags: [String: String] {
    ImgCacheCLI.policyFlags([
      ("cookie_jar", cookieJar), ("cacert", cacert), ("connect_timeout", connectTimeout),
      ("timeout", timeout), ("max_time", maxTime), ("max_filesize", maxFilesize),
      ("retry", retry), ("user_agent", userAgent), ("failed_ttl", failedTTL), ("rate", rate),
      ("rate_per_host", ratePerHost),
      ("netrc", netrc ? "true" : nil), ("insecure", insecure ? "true" : nil),
    ])
  }

  /// The downloader options: the policy, then headers and credentials from the flags.
  func transferOptions(_ context: CommandContext) throws -> TransferOptions {
    var options = context.configuration.transfer
    for header in header { try TransferOptions.checkHeader(header) }
    options.headers = header
    for entry in resolve { _ = try TransferOptions.checkResolve(entry) }
    options.resolve = resolve
    options.credentials = user
    let fitted = options.fittingOpenFiles()
    options = fitted.options
    if let notice = fitted.notice { context.console.warning(notice) }
    if options.insecure {
      context.console.warning("TLS certificates are not verified (--insecure)")
    }
    return options
  }
}

/// Where `fetch` and `prefetch` may get bodies from, and how keys are made.
struct FetchFlags: ParsableArguments {
  @Flag(name: .long, help: "Never touch the network; a miss exits 1.")
  var offline = false
  @Flag(name: .long, help: "Skip the cache lookup and download (still stores).")
  var reload = false
  @Flag(
    name: .long, help: "Revalidate with the stored ETag/Last-Modified (304 keeps, 200 replaces).")
  var refresh = false
  @Flag(name: .long, help: "Ignore the failed-URL list; a success clears the URL from it.")
  var retryFailed = false
  @Flag(name: .long, help: "Accept any body, not only images.")
  var any = false
  @OptionGroup var keys: KeyFilterOption
  @Option(
    name: .long, help: "Extra read-only cache directory in SDWebImage's flat layout (repeatable).",
    completion: .directory)
  var roDir: [String] = []
  @Option(name: .long, help: "never: use entries while they exist; http: revalidate stale ones.")
  var freshness: String?
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Serve the stored copy if revalidation fails (network, 5xx, 429); alone: any age.",
      valueName: "duration"))
  var staleIfError: String?
  @Option(
    name: .long,
    help: "Remote tier: backend URLs (redis://, redis+unix:, http(s)://, s3://) with |attributes.")
  var remote: String?
  @Flag(name: .long, help: "Neither ask nor write the remote tier.")
  var noRemote = false
  @Flag(
    inversion: .prefixedNo,
    help: "Obey robots.txt (RFC 9309) and X-Robots-Tag opt-outs; a disallowed URL exits 14.")
  var robots: Bool?

  /// The fetch options under `policy`.
  func fetchOptions(_ context: CommandContext) throws -> FetchOptions {
    let modes = [offline, reload, refresh].filter { $0 }.count
    guard modes <= 1 else {
      throw CacheError(.invalidInput, "--offline, --reload and --refresh exclude each other")
    }
    var options = FetchOptions(policy: context.configuration)
    options.mode = offline ? .offline : reload ? .reload : refresh ? .refresh : .normal
    options.retryFailed = retryFailed
    options.acceptAnyBody = any
    options.useRemote = !noRemote
    return options
  }

  var policyFlags: [String: String] {
    keys.policyFlags.merging(
      ImgCacheCLI.policyFlags([
        ("freshness", freshness), ("stale_if_error", staleIfError), ("remote_storage", remote),
        ("robots", robots.map { $0 ? "obey" : "ignore" }),
      ])
    ) { $1 }
  }
}

/// `--key-filter`, for every command that turns URLs into keys.
struct KeyFilterOption: ParsableArguments {
  @Option(name: .long, help: "Cache key filter: none or strip-query.")
  var keyFilter: String?

  /// The policy value the flag sets, if given.
  var policyFlags: [String: String] { ImgCacheCLI.policyFlags([("key_filter", keyFilter)]) }
}

extension FetchOptions {
  /// The fetch options the policy sets (keys, failed URLs, freshness, robots); the rest as
  /// by default. `fetch`, `prefetch` and `job work` start from these.
  init(policy configuration: Configuration) {
    self.init()
    keyFilter = configuration.keyFilter
    failedTTL = configuration.failedTTL
    freshness = configuration.freshness
    robots = configuration.robots
  }
}
