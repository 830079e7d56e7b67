import FoundationEssentials
import ImgCacheKit

/// What a command needs, resolved once from options, environment and config files.
struct CommandContext: Sendable {
  let console: Console
  let resolved: ResolvedConfiguration
  /// The cache; nothing is opened until first use, and it is closed when the command ends.
  let cache: DiskCache
  /// The cache directory, absolute and standard (``StandardPath``): no `URL` on the way
  /// (``CacheLayout/rootPath``).
  let cacheDirectory: String
  /// The policy files consulted: the per-cache file, then the user file.
  let cacheFile: String
  let userFile: String?
  let global: GlobalOptions
  /// `--json`, read once: the parser's property wrapper costs ≈1,000 instructions a read, and
  /// `fetch -i` asks for every line.
  let json: Bool

  /// The typed policy.
  var configuration: Configuration { resolved.configuration }

  /// Resolves the cache directory and the policy; `flags` are the command's policy flags.
  init(global: GlobalOptions, flags: [String: String] = [:]) throws {
    self.global = global
    json = global.json
    console = Console(quiet: global.quiet, verbose: global.verbose, color: global.color)
    let environment = ProcessEnvironment.current
    cacheDirectory = try Self.directory(global.dir, environment: environment)
    cacheFile = Self.cacheFile(in: cacheDirectory)
    userFile = Self.userFile(global: global, environment: environment)
    var keyed = [PolicyKey: String]()
    var flags = flags
    if let statsLog = global.statsLog { flags["stats_log"] = statsLog }
    for (name, value) in flags {
      guard let key = PolicyKey.named(name) else {
        throw CacheError(.invalidInput, "unknown policy key \(name)")
      }
      keyed[key] = value
    }
    resolved = try ResolvedConfiguration(
      flags: keyed, environment: environment,
      cacheFile: cacheFile, userFile: userFile,
      userFileRequired: global.config != nil || environment["IMGCACHE_CONFIG"] != nil)
    cache = DiskCache(path: cacheDirectory, resume: resolved.configuration.resume)
    // The stats log's counters are tallied only when there is one (CommandRun.logStats).
    if resolved.configuration.statsLog != nil { CounterTally.start() }
  }

  /// `--dir` > `IMGCACHE_DIR` > `$XDG_CACHE_HOME/imgcache` > `~/.cache/imgcache`.
  static func directory(_ flag: String?, environment: [String: String]) throws -> String {
    let path: String
    if let given = flag ?? environment["IMGCACHE_DIR"] {
      guard !given.isEmpty else {
        throw CacheError(.invalidInput, "the cache directory is empty (--dir or IMGCACHE_DIR)")
      }
      path = given
    } else {
      guard let base = base(environment["XDG_CACHE_HOME"], fallback: ".cache") else {
        throw CacheError(
          .invalidInput, "cannot find a cache directory: set --dir, IMGCACHE_DIR or HOME")
      }
      path = base + "/imgcache"
    }
    guard let standard = StandardPath.of(path) else {
      throw CacheError(
        .invalidInput, "the cache directory \(path) is relative, and the working folder is gone")
    }
    return standard
  }

  /// `$DIR/imgcache.conf`.
  static func cacheFile(in directory: String) -> String {
    CacheLayout(path: directory).policyPath
  }

  /// `--config` > `IMGCACHE_CONFIG` > `$XDG_CONFIG_HOME/imgcache/config` > `~/.config/…`.
  static func userFile(global: GlobalOptions, environment: [String: String]) -> String? {
    global.config ?? environment["IMGCACHE_CONFIG"]
      ?? base(environment["XDG_CONFIG_HOME"], fallback: ".config").map { $0 + "/imgcache/config" }
  }

  /// An XDG base directory: the variable when absolute, else `$HOME/fallback`.
  private static func base(_ value: String?, fallback: String) -> String? {
    if let value, value.hasPrefix("/") { return value }
    guard let home = ProcessEnvironment.current["HOME"], !home.isEmpty else { return nil }
    return home + "/" + fallback
  }

  /// The pipeline over the cache and `readOnly` directories (and `fleetLocks`: one download
  /// per key across a fleet).
  func fetcher(
    readOnly: [String] = [], transfer: TransferOptions? = nil, remote: Bool = false,
    fleetLocks: (any FleetLocks)? = nil
  ) throws -> Fetcher {
    var fleetLocks = fleetLocks
    // `coalesce = fleet`: the remote tier's first Redis holds a lock per key (without a
    // remote tier there is nothing to be served from, so nothing to coalesce through).
    if remote, fleetLocks == nil, configuration.fleet.coalesce == .fleet,
      !configuration.remote.isEmpty
    {
      do {
        fleetLocks = try RedisFleetLocks(queue: nil, remote: configuration.remote)
      } catch {
        throw CacheError(
          .invalidInput, "coalesce = fleet needs a redis:// backend in remote_storage")
      }
    }
    return Fetcher(
      cache: cache, readOnly: readOnly.map { URL(fileURLWithPath: $0) },
      remote: remote ? usableRemoteTier() : nil, transfer: transfer ?? configuration.transfer,
      fleetLocks: fleetLocks)
  }

  /// The remote tier for a fetch: one that cannot be set up (no S3 keys in a cron job's
  /// environment, say) is warned about and left out, since a remote never fails a fetch.
  private func usableRemoteTier() -> RemoteTier? {
    do { return try remoteTier() } catch let error as CacheError {
      console.warning("\(error.message); going on without the remote tier")
    } catch {
      console.warning("remote storage: \(error); going on without the remote tier")
    }
    return nil
  }

  /// The remote tier of `remote_storage`, or nil when none is set.
  func remoteTier() throws -> RemoteTier? {
    guard !configuration.remote.isEmpty else { return nil }
    return try RemoteTier(
      specs: configuration.remote, cache: cache, environment: ProcessEnvironment.current)
  }

  /// Warns once about each remote backend that failed during the command (it was not asked
  /// again, and the command went on without it).
  func warnAboutRemote(_ fetcher: Fetcher) {
    for (backend, error) in fetcher.remote?.failures ?? [] {
      console.warning("remote \(backend) failed, not used again by this run: \(error)")
    }
    for (backend, count, reason) in fetcher.remote?.corruptObjects ?? [] {
      let objects = count == 1 ? "1 object" : "\(count) objects"
      console.warning(
        "remote \(backend): \(objects) refused (corrupt remote object: \(reason)); "
          + "fetched from the origin and written over")
    }
  }

  /// Reports a per-item error and returns its exit status.
  func report(_ error: CacheError) -> Int32 { ExitStatus.report(error, to: console) }

  /// Writes one JSON record on stdout; false once stdout is closed.
  @discardableResult
  func emit(_ record: some Encodable) -> Bool { console.data(Records.line(record)) }
}
