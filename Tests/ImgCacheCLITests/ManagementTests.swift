import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("imgcache list, config, size --by", .serialized)
struct ManagementTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// Fetches `names` from nginx, one process each, so their last uses are in this order.
  func fill(_ names: [String]) {
    for name in names { #expect(env.run(["fetch", servers.nginx(name)]).status == 0) }
  }

  @Test("list: one line per entry, filters, sort, reverse, limit, --urls, --paths, -0, --json")
  func list() throws {
    fill(["base.jpg", "base.png", "base.gif", "base.bmp"])
    let all = env.run(["list"])
    #expect(all.status == 0)
    let lines = all.stdout.split(separator: "\n")
    #expect(lines.count == 4)
    // Least recently used first, with the time, size, format and dimensions before the URL.
    #expect(lines.first?.hasSuffix(servers.nginx("base.jpg")) == true)
    #expect(lines.first?.contains("jpeg ") == true)
    #expect(
      lines.first?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "#, options: .regularExpression)
        != nil)
    #expect(
      env.run(["list", "--reverse", "--limit", "1", "--urls"]).stdout == servers.nginx("base.bmp")
        + "\n")
    #expect(
      env.run(["list", "--format", "gif,png", "--urls", "--sort", "url"]).stdout
        == servers.nginx("base.gif") + "\n" + servers.nginx("base.png") + "\n")
    #expect(
      env.run(["list", "--url-glob", "*/base.[jb]*", "--urls", "--sort", "url"]).stdout
        == servers.nginx("base.bmp") + "\n" + servers.nginx("base.jpg") + "\n")
    let sizes = try #require(
      env.run(["list", "--json", "--sort", "size"]).stdout
        .split(separator: "\n").map {
          try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        })
    let values = sizes.compactMap { $0?["size"] as? Int }
    #expect(values.count == 4 && values == values.sorted())
    #expect(
      sizes.allSatisfy { $0?["cached"] as? Bool == true && $0?["source"] as? String == "local" })
    let largest = try #require(values.last)
    #expect(
      env.run(["list", "--larger-than", "\(largest - 1)", "--urls"]).stdout.split(separator: "\n")
        .count == 1)
    #expect(
      env.run(["list", "--smaller-than", "\(largest)", "--urls"]).stdout.split(separator: "\n")
        .count == 3)
    let paths = env.run(["list", "--paths", "-0"]).stdout.split(separator: "\0").map(String.init)
    #expect(paths.count == 4 && paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    #expect(env.run(["list", "--unused-for", "1h"]).stdout.isEmpty)
    #expect(
      env.run(["list", "--used-within", "1h", "--urls"]).stdout.split(separator: "\n").count == 4)
    #expect(env.run(["list", "--created-before", "2000-01-01T00:00:00Z"]).stdout.isEmpty)
    #expect(
      env.run(["list", "--created-after", "2000-01-01", "--urls"]).stdout.split(separator: "\n")
        .count == 4)
    expectCleanError(env.run(["list", "--format", "jpg2"]), contains: "--format")
    #expect(env.run(["list", "--format", "jpg2"]).status == 2)
    #expect(env.run(["list", "--larger-than", "big"]).status == 2)
    #expect(env.run(["list", "--created-before", "yesterday"]).status == 2)
    // A time with anything after it is refused, not read as that day's midnight.
    for text in ["2000-01-01 12:00", "2000-01-01junk", "2000-01-01T00:00:00Zjunk"] {
      expectCleanError(env.run(["list", "--created-before", text]), contains: "invalid time")
    }
  }

  @Test("list --urls feeds remove -i -: the documented recipe")
  func listIntoRemove() throws {
    fill(["base.jpg", "base.png", "base.gif"])
    let urls = env.run(["list", "--format", "png,gif", "--urls"]).stdout
    let removed = env.run(["remove", "-i", "-"], input: urls)
    #expect(removed.status == 0)
    #expect(env.run(["list", "--urls"]).stdout == servers.nginx("base.jpg") + "\n")
    #expect(env.run(["size", "--json"]).stdout.contains("\"entries\":1"))
  }

  @Test("list --failed shows the failed-request records")
  func listFailed() throws {
    #expect(env.run(["fetch", servers.fault("/status/404?lf=1")]).status == 8)
    let failed = env.run(["list", "--failed"])
    #expect(failed.stdout.contains("404") && failed.stdout.contains("/status/404?lf=1"))
    let record = try #require(
      CLIEnvironment.records(env.run(["list", "--failed", "--json"])).first)
    #expect(record["http_status"] as? Int == 404 && record["kind"] as? String == "http_status")
    #expect(env.run(["list", "--failed", "--paths"]).status == 2)
  }

  @Test("list streams 200,000 entries in flat memory")
  func listMemory() throws {
    fill(["base.png"])
    let index = env.cacheDirectory + "/index.sqlite"
    let sql = """
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
      INSERT INTO entry (key, url, file_ext, size, allocated, format, width, height, scale,
        created, last_access, access_count, digest, digest_low)
      SELECT 'http://x/' || i, 'http://x/' || i, printf('%02x/%032x', i % 256, i), i, 4096,
        'png', 1, 1, 1, i, i, 0, i, 0 FROM n;
      """
    #expect(run("/usr/bin/sqlite3", [index, sql]).status == 0)
    let measured = run(
      "/usr/bin/time", ["-f", "%M", imgcacheBinary, "list", "--urls"],
      environment: env.environment)
    #expect(measured.status == 0)
    #expect(measured.stdout.split(separator: "\n").count == 200_001)
    let peakKiB = Int(measured.stderr.split(separator: "\n").last ?? "") ?? .max
    print("list of 200,001 entries: peak RSS \(peakKiB) KiB")
    // A listing held in memory would take well over 100 MiB; pages keep it flat.
    #expect(peakKiB < 80 * 1024)
  }

  @Test("config: origins, get, set keeps comments, unset, --user, path, bad keys and values")
  func config() throws {
    let cacheFile = env.cacheDirectory + "/imgcache.conf"
    try FileManager.default.createDirectory(
      atPath: env.cacheDirectory, withIntermediateDirectories: true)
    try "# mine\nmax_age = 3d  # short\n\njobs = 4\n".write(
      toFile: cacheFile, atomically: true, encoding: .utf8)
    chmod(cacheFile, 0o600)
    let shown = env.run(["config"], environment: ["IMGCACHE_MAX_SIZE": "2G"])
    #expect(shown.stdout.contains("(\(cacheFile):2) max_age = 3d\n"))
    #expect(shown.stdout.contains("(IMGCACHE_MAX_SIZE) max_size = 2G\n"))
    #expect(shown.stdout.contains("(default) retry = 2\n"))
    #expect(env.run(["config", "get", "jobs"]).stdout == "4\n")
    #expect(env.run(["config", "set", "max_age", "10d"]).status == 0)
    #expect(env.run(["config", "set", "retry", "5"]).status == 0)
    let edited = try String(contentsOfFile: cacheFile, encoding: .utf8)
    #expect(edited == "# mine\nmax_age = 10d  # short\n\njobs = 4\nretry = 5\n")
    #expect(env.run(["config", "unset", "jobs"]).status == 0)
    #expect(!(try String(contentsOfFile: cacheFile, encoding: .utf8)).contains("jobs"))
    #expect(env.run(["config", "set", "--user", "jobs", "8"]).status == 0)
    let record = try #require(
      CLIEnvironment.records(env.run(["config", "get", "jobs", "--json"])).first)
    #expect(
      record["value"] as? String == "8" && record["origin"] as? String == env.configFile + ":1")
    let unknown = env.run(["config", "set", "max_agee", "1d"])
    #expect(unknown.status == 2)
    expectCleanError(unknown, contains: "max_agee")
    #expect(env.run(["config", "set", "jobs", "0"]).status == 2)
    #expect(env.run(["config", "get", "nope"]).status == 2)
    #expect(
      env.run(["config", "path"]).stdout
        == [env.cacheDirectory, cacheFile, env.configFile].map { $0 + "\n" }.joined())
    let all = try #require(CLIEnvironment.records(env.run(["config", "--json"])).first)
    #expect((all["max_age"] as? [String: Any])?["value"] as? String == "10d")
  }

  @Test("size --by format and --by host: count, bytes, share, largest first")
  func sizeBreakdown() throws {
    fill(["base.jpg", "base.png", "progressive.jpg"])
    #expect(env.run(["fetch", servers.fault("/image/base.png?sb=1")]).status == 0)
    let byFormat = env.run(["size", "--by", "format"])
    #expect(byFormat.status == 0)
    let jpeg = byFormat.stdout.split(separator: "\n").first { $0.hasSuffix("  jpeg") }
    #expect(jpeg?.trimmingCharacters(in: .whitespaces).hasPrefix("2 ") == true)
    let record = try #require(
      CLIEnvironment.records(env.run(["size", "--by", "host", "--json"])).first)
    let groups = try #require(record["groups"] as? [[String: Any]])
    #expect(groups.count == 2)
    #expect(groups.map { $0["entries"] as? Int ?? 0 }.reduce(0, +) == 4)
    let shares = groups.compactMap { $0["share"] as? Double }
    #expect(abs(shares.reduce(0, +) - 1) < 0.001)
    #expect(env.run(["size", "--by", "colour"]).status == 2)
  }
}
