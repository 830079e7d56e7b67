import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache stats`: the persistent counters, like `ccache -s`.
  struct Stats: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "stats",
      abstract: "Print hit, miss, download, failure and eviction counters.",
      discussion: """
        Counters are kept in the index by every process (fetch, prefetch, clean, remove, \
        clear) and survive restarts; --zero starts them again (the sizes stay) and records \
        when. A query is not a lookup unless --touch. --format openmetrics or prometheus \
        prints them for Prometheus (every counter, the sizes, the hit ratio; the cache \
        directory as the label `cache`); --textfile DIR writes the prometheus form into DIR \
        for node_exporter's textfile collector (a temporary file renamed: a scrape never \
        reads half of it). Examples:
          imgcache stats --json | jq .hit_ratio
          imgcache stats --format openmetrics
          */5 * * * * imgcache stats --textfile /var/lib/prometheus/node-exporter
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: [.customShort("z"), .long], help: "Zero the counters (not the sizes).")
    var zero = false
    @Option(help: "Output: text, json, openmetrics or prometheus (text 0.0.4).")
    var format: ReportFormat?
    @Option(
      help: ArgumentHelp(
        "Write the metrics (prometheus form) to DIR/imgcache-<digest of the cache's path>.prom.",
        valueName: "dir"))
    var textfile: String?

    func validate() throws {
      _ = try ReportFormat.resolve(format, json: global.json)
      if zero && (format != nil || textfile != nil) {
        throw ValidationError("--zero prints nothing: drop --format and --textfile")
      }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      if zero {
        try context.cache.zeroStatistics()
        context.console.detail("statistics zeroed")
        return ExitStatus.ok
      }
      let statistics = try context.cache.statistics()
      let totals = try context.cache.totals()
      if let textfile {
        let path = try context.cache.writeMetrics(statistics, totals: totals, into: textfile)
        context.console.detail("metrics written to \(path)")
        if format == nil && !context.json { return ExitStatus.ok }
      }
      let form = try ReportFormat.resolve(format, json: context.json)
      if let exposition = form.exposition {
        context.console.data(
          context.cache.metricsText(statistics, totals: totals, as: exposition), terminator: "")
      } else if form == .json {
        context.emit(StatsRecord(statistics, totals: totals))
      } else {
        for line in StatsTable.lines(statistics, totals: totals) { context.console.data(line) }
      }
      return ExitStatus.ok
    }
  }
}

/// `stats --json`.
struct StatsRecord: Codable {
  /// Every counter by name (``Counter``'s raw values), zero when never counted.
  var counters: [String: Int64]
  /// Hits / lookups, or null before the first lookup.
  @Nullable var hitRatio: Double?
  @Nullable var since: Date?
  @Nullable var zeroed: Date?
  var totals: TotalsRecord
  /// Each remote backend's counters, by the backend as printed.
  var remotes: [RemoteCountersRecord]

  init(_ statistics: CacheStatistics, totals: CacheTotals) {
    counters = Dictionary(
      uniqueKeysWithValues: Counter.allCases.map { ($0.rawValue, statistics[$0]) })
    remotes = statistics.remotes.keys.sorted().map { backend in
      RemoteCountersRecord(backend: backend, counts: statistics.remotes[backend] ?? [:])
    }
    hitRatio = statistics.hitRatio
    since = statistics.since
    zeroed = statistics.zeroed
    self.totals = TotalsRecord(totals)
  }
}

/// One remote backend's counters in `stats --json`.
struct RemoteCountersRecord: Codable {
  var backend: String
  var hits: Int64
  var misses: Int64
  var errors: Int64
  var timeouts: Int64
  var corrupt: Int64
  var writes: Int64
  var bytesDown: Int64
  var bytesUp: Int64

  init(backend: String, counts: [Counter: Int64]) {
    self.backend = backend
    hits = counts[.remoteHits] ?? 0
    misses = counts[.remoteMisses] ?? 0
    errors = counts[.remoteErrors] ?? 0
    timeouts = counts[.remoteTimeouts] ?? 0
    corrupt = counts[.remoteCorrupt] ?? 0
    writes = counts[.remoteWrites] ?? 0
    bytesDown = counts[.remoteBytesDown] ?? 0
    bytesUp = counts[.remoteBytesUp] ?? 0
  }
}

/// The `stats` table.
struct StatsTable {
  /// The statistics shown.
  let s: CacheStatistics

  static func lines(_ s: CacheStatistics, totals: CacheTotals) -> [String] {
    let table = StatsTable(s: s)
    let since = s.since.map {
      (s.zeroed == nil ? "since " : "since zeroed ") + Units.formatTime($0)
    }
    let size = table.row(
      "Cache size", grouped(Int64(totals.entries)),
      "entries, \(Units.formatBytes(totals.bytes)) (\(Units.formatBytes(totals.allocated)) on disk)"
    )
    return ["Statistics " + (since ?? "(none yet)")] + table.traffic() + table.upkeep()
      + table.remote() + [size]
  }

  func row(_ label: String, _ value: String, _ extra: String = "") -> String {
    let padded = label.fitted(to: 28)
    let number = String(repeating: " ", count: max(0, 12 - value.count)) + value
    return padded + number + (extra.isEmpty ? "" : "  " + extra)
  }

  func count(_ counter: Counter) -> String { Self.grouped(s[counter]) }

  func percent(_ part: Int64) -> String {
    s[.lookups] > 0
      ? "(" + Printf.fixed(Double(part) * 100 / Double(s[.lookups]), digits: 1) + " %)" : ""
  }

  /// Counts read from a file, summed without a trap.
  func sum(_ counters: [(String, Counter)]) -> String {
    Self.grouped(counters.reduce(0) { $0.addingSaturating(s[$1.1]) })
  }

  /// Lookups, downloads and what was served.
  func traffic() -> [String] {
    let hits = s[.hitsLocal].addingSaturating(s[.hitsReadOnly]).addingSaturating(s[.remoteHits])
    return [
      row("Lookups", count(.lookups)),
      row("  Hits", Self.grouped(hits), percent(hits)),
      row("    local", count(.hitsLocal)),
      row("    read-only directories", count(.hitsReadOnly)),
      row("    remote", count(.remoteHits)),
      row("  Misses", count(.misses), percent(s[.misses])),
      row("Blacklisted refusals", count(.blacklisted)),
      row("Downloads", count(.downloads), Units.formatBytes(s[.bytesDownloaded])),
      row("Waited for another process", count(.waitedForProcess)),
      row("Not modified (304)", count(.notModified)),
      row("Served stale (origin failed)", count(.servedStale)),
      row("Not stored (no-store)", count(.notStored)),
      row("Served from the cache", Units.formatBytes(s[.bytesServed])),
      row("Variants derived", count(.derivations), Units.formatBytes(s[.bytesDerived])),
      row("  served stored", count(.variantHits)),
      row("  failed", count(.derivationFailures)),
    ]
  }

  /// Failures by class, evictions by cause, what was swept, cleans.
  func upkeep() -> [String] {
    let failures: [(String, Counter)] = [
      ("network", .failuresNetwork), ("TLS", .failuresTLS), ("authentication", .failuresAuth),
      ("protocol", .failuresProtocol), ("HTTP status", .failuresHTTP),
      ("not an image", .failuresNotImage), ("local I/O", .failuresLocal),
    ]
    let evictions: [(String, Counter)] = [
      ("age (clean)", .evictionsAge), ("size (clean)", .evictionsSize),
      ("count (clean)", .evictionsCount), ("remove", .evictionsRemove), ("clear", .evictionsClear),
    ]
    var lines = [row("Failures", sum(failures))]
    for (label, counter) in failures where s[counter] > 0 {
      lines.append(row("  " + label, count(counter)))
    }
    lines.append(row("Evictions", sum(evictions)))
    for (label, counter) in evictions { lines.append(row("  " + label, count(counter))) }
    return lines + [
      row("Orphan files swept", count(.orphansSwept)),
      row("Temporary files swept", count(.temporariesSwept)),
      row("Partial bodies given up", count(.partialsGivenUp)),
      row("Cleans", count(.cleans)),
    ]
  }

  /// The remote tier, in all and by backend.
  func remote() -> [String] {
    func remoteRow(_ label: String, _ value: (Counter) -> Int64) -> String {
      let grouped = Self.grouped
      return row(
        label, "",
        "hits \(grouped(value(.remoteHits))), misses \(grouped(value(.remoteMisses))), "
          + "errors \(grouped(value(.remoteErrors))), timeouts \(grouped(value(.remoteTimeouts))), "
          + "corrupt \(grouped(value(.remoteCorrupt))), "
          + "down \(Units.formatBytes(value(.remoteBytesDown))), "
          + "up \(Units.formatBytes(value(.remoteBytesUp))) (\(grouped(value(.remoteWrites))) writes)"
      )
    }
    var lines = [remoteRow("Remote", { s[$0] })]
    for backend in s.remotes.keys.sorted() {
      lines.append(remoteRow("  " + backend, { s.remotes[backend]?[$0] ?? 0 }))
    }
    return lines
  }

  /// `12,345`.
  static func grouped(_ value: Int64) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return (value < 0 ? "-" : "") + result
  }
}
