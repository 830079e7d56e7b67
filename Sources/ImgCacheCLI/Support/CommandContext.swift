import Foundation
import ImgCacheKit

/// What a command needs, resolved once from options, environment and config files.
struct CommandContext {
  let console: Console
  let policy: Policy
  let cacheDirectory: URL
  let global: GlobalOptions

  /// Resolves the cache directory and the policy; `flags` are the command's policy flags.
  init(global: GlobalOptions, flags: [PolicyKey: (String, String)] = [:]) throws {
    self.global = global
    console = Console(quiet: global.quiet, verbose: global.verbose, color: global.color)
    let environment = ProcessInfo.processInfo.environment
    cacheDirectory = try Self.directory(global.dir, environment: environment)
    let userFile =
      global.config ?? environment["IMGCACHE_CONFIG"]
      ?? Self.base(environment["XDG_CONFIG_HOME"], fallback: ".config").map {
        $0 + "/imgcache/config"
      }
    policy = try Policy(
      flags: flags, environment: environment,
      cacheFile: cacheDirectory.appendingPathComponent("imgcache.conf").path, userFile: userFile,
      userFileRequired: global.config != nil || environment["IMGCACHE_CONFIG"] != nil)
  }

  /// `--dir` > `IMGCACHE_DIR` > `$XDG_CACHE_HOME/imgcache` > `~/.cache/imgcache`.
  static func directory(_ flag: String?, environment: [String: String]) throws -> URL {
    if let path = flag ?? environment["IMGCACHE_DIR"] {
      guard !path.isEmpty else {
        throw UsageError(message: "the cache directory is empty (--dir or IMGCACHE_DIR)")
      }
      return URL(fileURLWithPath: path).standardizedFileURL
    }
    guard let base = base(environment["XDG_CACHE_HOME"], fallback: ".cache") else {
      throw UsageError(message: "cannot find a cache directory: set --dir, IMGCACHE_DIR or HOME")
    }
    return URL(fileURLWithPath: base + "/imgcache")
  }

  /// An XDG base directory: the variable when absolute, else `$HOME/fallback`.
  private static func base(_ value: String?, fallback: String) -> String? {
    if let value, value.hasPrefix("/") { return value }
    guard let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty else { return nil }
    return home + "/" + fallback
  }

  /// The cache, with read-only directories.
  func cache(readOnly: [String] = []) -> DiskCache {
    DiskCache(
      directory: cacheDirectory, readOnlyDirectories: readOnly.map { URL(fileURLWithPath: $0) })
  }

  /// Reports a cache error and returns its exit status.
  func report(_ error: CacheError) -> Int32 {
    console.error(error.message)
    return ExitStatus.code(for: error.kind)
  }
}
