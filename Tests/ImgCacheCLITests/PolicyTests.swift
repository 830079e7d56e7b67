import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("Policy precedence, config files, usage errors, docs in sync")
struct PolicyTests {
  let env = CLIEnvironment()

  /// The max_size `clean --dry-run --json` would use.
  func effectiveMaxSize(_ arguments: [String] = [], environment: [String: String] = [:]) -> Int? {
    let output = env.run(["clean", "--dry-run", "--json"] + arguments, environment: environment)
    let limits = CLIEnvironment.records(output).first?["limits"] as? [String: Any]
    return limits?["max_size"] as? Int
  }

  func writeCacheConfig(_ text: String) throws {
    try text.write(toFile: env.cacheDirectory + "/imgcache.conf", atomically: true, encoding: .utf8)
  }

  @Test("a flag beats a variable beats the cache's file beats the user's file beats the default")
  func precedence() throws {
    // clean reports its limits only for a cache that exists.
    try store(
      DiskCache(directory: URL(fileURLWithPath: env.cacheDirectory)), "https://example.com/a.png")
    #expect(effectiveMaxSize() == 0)
    try "max_size = 1K  # user\n".write(toFile: env.configFile, atomically: true, encoding: .utf8)
    #expect(effectiveMaxSize() == 1024)
    try writeCacheConfig("# per cache\nmax_size = 2K\n")
    #expect(effectiveMaxSize() == 2048)
    #expect(effectiveMaxSize(environment: ["IMGCACHE_MAX_SIZE": "3K"]) == 3072)
    #expect(
      effectiveMaxSize(["--max-size", "4K"], environment: ["IMGCACHE_MAX_SIZE": "3K"]) == 4096)
    let other = env.root.path + "/other.conf"
    try "max_size = 5KB\n".write(toFile: other, atomically: true, encoding: .utf8)
    try writeCacheConfig("")
    #expect(effectiveMaxSize(["--config", other]) == 5000)
    #expect(effectiveMaxSize(environment: ["IMGCACHE_CONFIG": other]) == 5000)
  }

  @Test(
    "bad values name their source",
    arguments: [
      (["clean", "--max-size", "3XB"], [String: String](), "--max-size"),
      (["clean"], ["IMGCACHE_MAX_AGE": "7"], "IMGCACHE_MAX_AGE"),
      (["clean", "--target", "1.5"], [:], "--target"),
      (["clean"], ["IMGCACHE_JOBS": "many"], "IMGCACHE_JOBS"),
      (["size", "--config", "/nonexistent/imgcache.conf"], [:], "/nonexistent/imgcache.conf"),
      (["fetch", "not a url"], [:], "not a url"),
      (["fetch", "ftp://127.0.0.1/a.png"], [:], "unsupported scheme"),
      (["fetch", "-H", "NoColon", "http://127.0.0.1:9/a.png"], [:], "NoColon"),
      (["size", "--frobnicate"], [:], "--frobnicate"),
      (["fetch"], [:], "URL"),
      (["nonsense"], [:], "nonsense"),
    ])
  func usageErrors(arguments: [String], environment: [String: String], culprit: String) {
    let output = env.run(arguments, environment: environment)
    #expect(output.status == 2, "\(arguments): \(output.stderr)")
    #expect(output.stdout.isEmpty)
    expectCleanError(output, contains: culprit)
  }

  @Test("a bad config line is a usage error naming file and line")
  func badConfigLine() throws {
    try "jobs = 4\nthis is not a setting\n".write(
      toFile: env.configFile, atomically: true, encoding: .utf8)
    let output = env.run(["size"])
    #expect(output.status == 2)
    expectCleanError(output, contains: env.configFile + ":2")
    try "colour = blue\n".write(toFile: env.configFile, atomically: true, encoding: .utf8)
    expectCleanError(env.run(["size"]), contains: "unknown key 'colour'")
    try "max_age = forever\n".write(toFile: env.configFile, atomically: true, encoding: .utf8)
    expectCleanError(env.run(["size"]), contains: env.configFile + ":1")
  }

  @Test(
    "--dir beats IMGCACHE_DIR beats XDG_CACHE_HOME; global options work before and after the command"
  )
  func directory() throws {
    let flagDir = env.root.path + "/flag"
    let xdg = env.root.path + "/xdg"
    for (directory, size) in [(flagDir, 3), (xdg + "/imgcache", 5), (env.cacheDirectory, 7)] {
      let cache = DiskCache(directory: URL(fileURLWithPath: directory))
      try store(cache, "https://example.com/seed.png", [UInt8](repeating: 1, count: size))
    }
    var environment = env.environment
    environment.removeValue(forKey: "IMGCACHE_DIR")
    environment["XDG_CACHE_HOME"] = xdg
    #expect(
      ImgCacheTestSupport.run(imgcacheBinary, ["size", "--bytes"], environment: environment).stdout
        == "5\n")
    #expect(env.run(["size", "--bytes"], environment: ["XDG_CACHE_HOME": xdg]).stdout == "7\n")
    #expect(env.run(["--dir", flagDir, "size", "--bytes"]).stdout == "3\n")
    #expect(env.run(["size", "--dir", flagDir, "--bytes"]).stdout == "3\n")
    #expect(env.run(["--json", "size"]).stdout.hasPrefix("{"))
  }

  @Test("--help lists the exit statuses and every policy key; --version prints the version")
  func help() {
    let help = env.run(["--help"])
    #expect(help.status == 0)
    for key in [
      "max_age", "max_size", "target", "max_entries", "jobs", "failed_ttl", "max_filesize",
      "user_agent",
    ] {
      #expect(help.stdout.contains(key), "\(key)")
    }
    #expect(help.stdout.contains("130  interrupted"))
    #expect(env.run(["--version"]).stdout == ImgCacheVersion.current + "\n")
  }

  @Test("committed completions and man page match the parser")
  func docsInSync() throws {
    let root = repositoryRoot.path
    for (shell, file) in [
      ("bash", "imgcache.bash"), ("zsh", "_imgcache"), ("fish", "imgcache.fish"),
    ] {
      let generated = env.run(["--generate-completion-script", shell]).stdout
      let committed = try String(contentsOfFile: root + "/completions/" + file, encoding: .utf8)
      #expect(generated == committed, "completions/\(file) is out of date: run 'make docs'")
    }
    let man = try String(contentsOfFile: root + "/man/imgcache.1", encoding: .utf8)
    for command in ["fetch", "prefetch", "query", "remove", "clean", "size", "clear"] {
      #expect(man.contains(command))
    }
    #expect(man.contains("interrupted"))
  }
}
