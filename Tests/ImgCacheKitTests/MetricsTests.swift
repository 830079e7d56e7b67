import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet
@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCacheStorage
@testable import ImgCacheSupport

/// The metrics of `stats` (docs/design.md, Metrics): every counter in exactly one family, and
/// both text formats written as their specifications say.
@Suite("Metrics: every counter once, OpenMetrics and Prometheus text")
struct MetricsTests {
  /// Every counter set to a value of its own, remote backends included.
  private func statistics() -> CacheStatistics {
    var counts = [Counter: Int64]()
    for (index, counter) in Counter.allCases.enumerated() { counts[counter] = Int64(1_000 + index) }
    var statistics = CacheStatistics(counts: counts)
    statistics.since = Date(timeIntervalSince1970: 1_700_000_000.5)
    statistics.remotes = ["redis://b:6379": [Counter.remoteHits: 7, Counter.remoteBytesUp: 9]]
    return statistics
  }

  @Test("every counter is one sample of one family, its value its own; the sizes are gauges")
  func everyCounterOnce() throws {
    let totals = CacheTotals(entries: 3, bytes: 40, allocated: 48)
    let families = CacheMetrics.families(statistics(), totals: totals)
    let names = families.map(\.name)
    #expect(Set(names).count == names.count, "a family named twice")
    let counted = families.filter { $0.kind == .counter && !$0.name.contains("backend") }
    let values = counted.flatMap(\.samples).map(\.value)
    #expect(values.count == Counter.allCases.count)
    for (index, counter) in Counter.allCases.enumerated() {
      #expect(values.filter { $0 == .integer(Int64(1_000 + index)) }.count == 1, "\(counter)")
    }
    let backend = try #require(families.first { $0.name == "imgcache_remote_backend_operations" })
    #expect(backend.samples.count == 6)
    #expect(backend.samples.contains { $0.value == .integer(7) && $0.labels[1].value == "hits" })
    let gauges = Dictionary(
      uniqueKeysWithValues: families.filter { $0.kind == .gauge }.map { ($0.name, $0.samples) })
    #expect(gauges["imgcache_entries"]?.first?.value == .integer(3))
    #expect(gauges["imgcache_allocated_bytes"]?.first?.value == .integer(48))
    #expect(gauges["imgcache_counters_zeroed_timestamp_seconds"]?.isEmpty == true)
    for family in families {
      #expect(family.name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
      #expect(family.unit.map { family.name.hasSuffix("_" + $0) } ?? true, "\(family.name)")
    }
  }

  @Test("OpenMetrics: TYPE, UNIT and HELP by family, _total samples, escapes, # EOF")
  func openMetrics() {
    let family = MetricFamily(
      "imgcache_served_bytes", .counter, help: "a \\ b\nc \"d\"", unit: "bytes",
      samples: [MetricSample(.integer(5), labels: [("tier", "x\"y\\z\nw")])])
    let text = Exposition.openMetrics.text([family], common: [("cache", "/c")])
    #expect(
      text == """
        # HELP imgcache_served_bytes a \\\\ b\\nc \\"d\\"
        # TYPE imgcache_served_bytes counter
        # UNIT imgcache_served_bytes bytes
        imgcache_served_bytes_total{cache="/c",tier="x\\"y\\\\z\\nw"} 5
        # EOF

        """)
  }

  @Test("Prometheus 0.0.4: families named as their samples, no UNIT, no EOF; values")
  func prometheus() {
    let families = [
      MetricFamily(
        "imgcache_lookups", .counter, help: "say \"hi\"", samples: [MetricSample(.integer(2))]),
      MetricFamily("imgcache_hit_ratio", .gauge, help: "r", samples: [MetricSample(.real(0.25))]),
      MetricFamily("imgcache_empty", .gauge, help: "none", samples: []),
    ]
    #expect(
      Exposition.prometheus.text(families) == """
        # HELP imgcache_lookups_total say "hi"
        # TYPE imgcache_lookups_total counter
        imgcache_lookups_total 2
        # HELP imgcache_hit_ratio r
        # TYPE imgcache_hit_ratio gauge
        imgcache_hit_ratio 0.25

        """)
    #expect(
      Exposition.number(.real(.nan)) == "NaN" && Exposition.number(.real(-.infinity)) == "-Inf")
    #expect(
      Exposition.number(.real(1e-5)) == "1e-05"
        && Exposition.number(.integer(.min)) == "\(Int64.min)")
  }

  @Test("a job's failure classes from Redis: unknown ones counted as other, sums saturate")
  func jobFailures() throws {
    var counts = ShardCounts()
    counts.urls = 10
    counts.failed = ["http_4xx": 2, "bogus\nclass": 3, "x": Int.max, "network": 1]
    let status = JobStatus(
      state: "open", urls: 20, shards: 2, shardSize: 10, done: 1, dead: 0,
      inProgress: ["w1": .max, "w2": 5], pending: 0, counts: counts, submitted: nil,
      started: Date(timeIntervalSince1970: 100), workers: [:], takeovers: [:],
      options: JobOptions())
    let families = JobMetrics.families(status, job: "j", at: Date(timeIntervalSince1970: 110))
    let failures = try #require(families.first { $0.name == "imgcache_job_failures" })
    #expect(failures.samples.map { $0.labels[1].value } == ["http_4xx", "network", "other"])
    #expect(failures.samples.allSatisfy { $0.labels[0] == ("job_name", "j") })
    #expect(!families.contains { $0.name.hasPrefix("imgcache_fleet_") }, "unknown: absent")
    #expect(failures.samples.last?.value == .integer(Int64(Int.max)))
    let shards = try #require(families.first { $0.name == "imgcache_job_shards" })
    #expect(shards.samples.contains { $0.value == .integer(.max) })
    let eta = try #require(families.first { $0.name == "imgcache_job_eta_seconds" })
    #expect(eta.samples == [MetricSample(.real(10), labels: [("job_name", "j")])])
    #expect(
      Exposition.prometheus.text(families).contains(
        "imgcache_job_urls_per_second{job_name=\"j\"} 1.0"))
  }

  @Test("the line log: whole lines from many writers, rotated past its limit")
  func lineLog() throws {
    let directory = TemporaryDirectory()
    let path = directory.url.appendingPathComponent("stats.log").path
    DispatchQueue.concurrentPerform(iterations: 4) { writer in
      for line in 0..<200 {
        try? LineLog.append(
          "writer \(writer) line \(line) " + String(repeating: "x", count: 40), to: path,
          limit: 4_000)
      }
    }
    let current = try String(contentsOfFile: path, encoding: .utf8)
    let previous = try String(contentsOfFile: path + ".1", encoding: .utf8)
    for text in [current, previous] {
      #expect(text.hasSuffix("\n") && text.utf8.count < 4_000 + 100)
      #expect(
        text.split(separator: "\n").allSatisfy { $0.hasPrefix("writer ") && $0.hasSuffix("x") })
    }
    #expect(current.contains("line 199"))
    #expect(throws: CacheError.self) { try LineLog.append("x", to: path + "/no/such") }
  }
}
