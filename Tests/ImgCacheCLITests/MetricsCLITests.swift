import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `stats --format openmetrics|prometheus` and `--textfile` (docs/design.md, Metrics), checked
/// by the real readers: `promtool check metrics` (Prometheus's linter, 0.0.4 text) and the
/// OpenMetrics parser of the Python client (promtool reads no OpenMetrics).
@Suite("imgcache stats for Prometheus: promtool, the OpenMetrics parser, the textfile", .serialized)
struct MetricsCLITests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// `promtool check metrics` on `text`: its status and what it said.
  private func promtool(_ text: String) -> ProcessOutput {
    run("/usr/bin/promtool", ["check", "metrics"], input: text)
  }

  /// The OpenMetrics parser on `text`: each sample as `name{labels} value` (labels sorted), or
  /// the parser's error.
  private func parseOpenMetrics(_ text: String) -> ProcessOutput {
    let script = """
      import sys
      from prometheus_client.openmetrics.parser import text_string_to_metric_families
      for family in text_string_to_metric_families(sys.stdin.read()):
          for s in family.samples:
              labels = ",".join(f'{k}={v}' for k, v in sorted(s.labels.items()))
              print(f"{family.type} {s.name}{{{labels}}} {s.value}")
      """
    return run("/usr/bin/env", ["python3", "-c", script], input: text)
  }

  @Test("both formats pass their readers, every counter of stats --json among the samples")
  func formats() throws {
    let png = servers.nginx("base.png")
    #expect(env.run(["fetch", png]).status == 0)
    #expect(env.run(["fetch", png]).status == 0)
    #expect(env.run(["fetch", servers.fault("/status/404?m=1")]).status == 8)
    let prometheus = env.run(["stats", "--format", "prometheus"])
    #expect(prometheus.status == 0 && prometheus.stderr.isEmpty)
    let lint = promtool(prometheus.stdout)
    #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
    let open = env.run(["stats", "--format", "openmetrics"])
    #expect(open.status == 0 && open.stdout.hasSuffix("# EOF\n"))
    let parsed = parseOpenMetrics(open.stdout)
    #expect(parsed.status == 0, "\(parsed.stderr)")
    let cache = "cache=\(env.cacheDirectory)"
    let samples = Set(parsed.stdout.split(separator: "\n").map(String.init))
    for expected in [
      "counter imgcache_lookups_total{\(cache)} 3",
      "counter imgcache_hits_total{\(cache),tier=local} 1",
      "counter imgcache_failures_total{\(cache),class=http} 1",
      "counter imgcache_downloads_total{\(cache)} 1", "gauge imgcache_entries{\(cache)} 1",
    ] {
      #expect(samples.contains(expected), "\(expected)")
    }
    // Every counter's value among the counter samples: the JSON's and the exposition's agree.
    let counted = samples.filter { $0.hasPrefix("counter ") && !$0.contains("backend") }
    #expect(counted.count == Counter.allCases.count)
    let values = counted.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    let counters = try env.counters().values.compactMap { $0 as? Int }
    #expect(values.map { Int($0) }.sorted() == counters.sorted())
  }

  @Test("--textfile: one whole file for node_exporter, named by the cache, nothing else left")
  func textfile() throws {
    #expect(env.run(["fetch", servers.nginx("base.gif")]).status == 0)
    let directory = env.root.path + "/textfile"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let written = env.run(["stats", "--textfile", directory])
    #expect(written.status == 0 && written.stdout.isEmpty, "\(written)")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names.count == 1 && names[0].hasPrefix("imgcache-") && names[0].hasSuffix(".prom"))
    let text = try String(contentsOfFile: directory + "/" + names[0], encoding: .utf8)
    #expect(promtool(text).status == 0 && text.contains("imgcache_downloads_total{cache="))
    #expect(env.run(["stats", "--textfile", directory]).status == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == names)
    let missing = env.run(["stats", "--textfile", directory + "/none"])
    #expect(missing.status != 0 && missing.stderr.split(separator: "\n").count == 1)
    #expect(missing.stderr.contains(directory + "/none"), "\(missing.stderr)")
    let clash = env.run(["--json", "stats", "--format", "openmetrics"])
    #expect(clash.status == 2 && clash.stderr.contains("--json"), "\(clash.stderr)")
  }

  @Test("job status for Prometheus: shards by state, URLs by outcome, failures by class")
  func jobStatus() throws {
    let fleet = JobFleet()
    let urls =
      servers.distinctImages(6).map { servers.fault($0) } + [servers.fault("/status/404?j=1")]
    try fleet.submit("metered", urls, ["--shard-size", "4"])
    let (status, said) = try fleet.worker("metered").finish()
    #expect(status >= 0, "the worker ends once the job is done: \(said)")
    // The fleet's politeness: one host paused a minute on, one whose pause is over, one key of
    // another type (counted as no pause).
    let time = fleet.redis.redisCLI(0, ["TIME"]).split(separator: "\n").compactMap { Int64($0) }
    try #require(time.count == 2)
    let now = time[0] * 1_000_000 + time[1]
    _ = fleet.redis.redisCLI(
      0, ["HSET", "imgcache:host:slow.example", "paused", String(now + 60_000_000)])
    _ = fleet.redis.redisCLI(0, ["HSET", "imgcache:host:past.example", "paused", String(now - 1)])
    _ = fleet.redis.redisCLI(0, ["SET", "imgcache:host:odd.example", "x"])
    let prometheus = fleet.job(CLIEnvironment(), ["status", "metered", "--format", "prometheus"])
    #expect(prometheus.status == 0, "\(prometheus.stderr)")
    let lint = promtool(prometheus.stdout)
    #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
    let open = fleet.job(CLIEnvironment(), ["status", "metered", "--format", "openmetrics"])
    let parsed = parseOpenMetrics(open.stdout)
    #expect(parsed.status == 0, "\(parsed.stderr)")
    let samples = Set(parsed.stdout.split(separator: "\n").map(String.init))
    for expected in [
      "gauge imgcache_job_shards{job_name=metered,state=done} 2",
      "gauge imgcache_job_shards{job_name=metered,state=pending} 0",
      "gauge imgcache_job_urls{job_name=metered} 7",
      "counter imgcache_job_urls_finished_total{job_name=metered,outcome=stored} 6",
      "counter imgcache_job_failures_total{class=http_4xx,job_name=metered} 1",
      "gauge imgcache_job_open{job_name=metered} 1", "gauge imgcache_fleet_paused_hosts{} 1",
    ] {
      #expect(samples.contains(expected), "\(expected) in \(parsed.stdout)")
    }
    let pause = samples.first { $0.hasPrefix("gauge imgcache_fleet_host_pause_seconds{") }
    #expect(pause?.contains("{host=slow.example}") == true, "\(parsed.stdout)")
    let left = pause?.split(separator: " ").last.flatMap { Double($0) } ?? 0
    #expect(left > 50 && left <= 60)
    let text = fleet.job(CLIEnvironment(), ["status", "metered"]).stdout
    #expect(text.contains("hosts paused by the fleet: 1 (slow.example "), "\(text)")
    let clash = fleet.job(CLIEnvironment(), ["status", "metered", "--json", "--format", "text"])
    #expect(clash.status == 2)
  }

  @Test("--stats-log: one JSON line a run, with the counters it changed and its exit status")
  func statsLog() throws {
    let log = env.root.path + "/stats.log"
    let png = servers.nginx("base.bmp")
    #expect(env.run(["fetch", "--stats-log", log, png]).status == 0)
    #expect(env.run(["fetch", png], environment: ["IMGCACHE_STATS_LOG": log]).status == 0)
    #expect(env.run(["--stats-log", log, "fetch", servers.fault("/status/404?log=1")]).status == 8)
    #expect(env.run(["fetch", png]).status == 0, "no log without the policy")
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    try #require(lines.count == 3)
    let records = lines.compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let counters = records.map { $0["counters"] as? [String: Int] ?? [:] }
    #expect(records.allSatisfy { $0["command"] as? String == "fetch" && $0["start"] is String })
    #expect(records.map { $0["exit_status"] as? Int } == [0, 0, 8])
    #expect(
      counters[0]["downloads"] == 1 && counters[0]["misses"] == 1 && counters[0]["lookups"] == 1)
    #expect(counters[1]["hits_local"] == 1 && counters[1]["downloads"] == nil)
    #expect(counters[2]["failures_http"] == 1 && counters[2]["hits_local"] == nil)
    #expect(records.allSatisfy { ($0["duration_seconds"] as? Double ?? -1) >= 0 })
    let unwritable = env.run(["fetch", "--stats-log", env.root.path + "/none/x.log", png])
    #expect(unwritable.status == 0 && unwritable.stderr.contains("stats log not written"))
  }

  @Test("node_exporter's textfile collector serves what --textfile wrote, without an error")
  func nodeExporter() throws {
    #expect(env.run(["fetch", servers.nginx("base.jpg")]).status == 0)
    let directory = env.root.path + "/collector"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    #expect(env.run(["stats", "--textfile", directory]).status == 0)
    let port = try freePort()
    let exporter = Process()
    exporter.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus-node-exporter")
    exporter.arguments = [
      "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults",
      "--collector.textfile", "--collector.textfile.directory=\(directory)",
    ]
    exporter.standardOutput = FileHandle.nullDevice
    exporter.standardError = FileHandle.nullDevice
    try exporter.run()
    defer {
      exporter.terminate()
      exporter.waitUntilExit()
    }
    var scraped = ""
    for _ in 0..<100 where scraped.isEmpty {
      let answer = run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/metrics"])
      if answer.status == 0 { scraped = answer.stdout } else { usleep(50_000) }
    }
    #expect(scraped.contains("node_textfile_scrape_error 0"), "\(scraped)")
    #expect(scraped.contains("imgcache_downloads_total{cache=\"\(env.cacheDirectory)\"} 1"))
  }

  @Test("a damaged index's counters: huge ones summed without a trap, a negative one as 0")
  func damagedCounters() throws {
    #expect(env.run(["fetch", servers.nginx("base.png?damaged=1")]).status == 0)
    let script = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("INSERT OR REPLACE INTO counter (name, value) VALUES ('hits_local', 9223372036854775807)")
      db.execute("INSERT OR REPLACE INTO counter (name, value) VALUES ('hits_read_only', 5)")
      db.execute("INSERT OR REPLACE INTO counter (name, value) VALUES ('evictions_age', -3)")
      db.commit()
      """
    let edited = run(
      "/usr/bin/env", ["python3", "-c", script, env.cacheDirectory + "/index.sqlite"])
    try #require(edited.status == 0, "\(edited.stderr)")
    let table = env.run(["stats"])
    #expect(table.status == 0 && table.stdout.hasPrefix("Statistics since"), "\(table.stderr)")
    let open = env.run(["stats", "--format", "openmetrics"])
    let parsed = parseOpenMetrics(open.stdout)
    #expect(parsed.status == 0, "\(parsed.stderr)")
    #expect(
      parsed.stdout.contains("imgcache_evictions_total{cache=\(env.cacheDirectory),cause=age} 0"))
  }

  /// A port of 127.0.0.1 nothing listens on now.
  private func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    try #require(bound)
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
