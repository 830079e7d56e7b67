import FoundationEssentials

/// The counters and sizes of `stats` as metric families (docs/design.md, Metrics): every
/// ``Counter`` in exactly one family, its kind as a label where counters are kinds of one
/// thing (hits by `tier`, failures by `class`, evictions by `cause`); the remote backends'
/// own counters labelled by `backend`, which only the configuration names (bounded). Read
/// from the counters and the running totals alone: O(1) in the cache's size.
package enum CacheMetrics {
  /// The families of `statistics` and `totals`.
  package static func families(_ statistics: CacheStatistics, totals: CacheTotals)
    -> [MetricFamily]
  {
    var families = [String: MetricFamily]()
    var order = [String]()
    for counter in Counter.allCases {
      let place = self.place(of: counter)
      if families[place.family] == nil {
        order.append(place.family)
        families[place.family] = MetricFamily(
          place.family, .counter, help: place.help, unit: place.unit, samples: [])
      }
      // A counter never goes below zero; a damaged index's negative one is written as zero.
      families[place.family]?.samples.append(
        MetricSample(
          .integer(max(0, statistics[counter])), labels: place.label.map { [$0] } ?? []))
    }
    return order.compactMap { families[$0] } + backends(statistics.remotes)
      + gauges(statistics, totals: totals)
  }

  /// Where a counter goes: its family, the family's help and unit, and its own label.
  struct Place {
    var family: String
    var help: String
    var unit: String?
    var label: (name: String, value: String)?
  }

  private static func place(of counter: Counter) -> Place {
    if let place = labelled(counter) { return place }
    let name = counter.rawValue
    switch counter {
    case .bytesDownloaded:
      return Place(family: "imgcache_downloaded_bytes", help: "Bytes downloaded", unit: "bytes")
    case .bytesServed:
      return Place(
        family: "imgcache_served_bytes", help: "Bytes served from the cache", unit: "bytes")
    case .bytesDerived:
      return Place(
        family: "imgcache_derived_bytes", help: "Bytes of variants derived", unit: "bytes")
    default: return Place(family: "imgcache_" + name, help: help(of: counter))
    }
  }

  /// The counters that are one kind of a family: hits, failures, evictions, remote errors and
  /// bytes.
  private static func labelled(_ counter: Counter) -> Place? {
    let hits = "Lookups answered from the cache, by tier"
    let failures = "Downloads failed, by class of failure"
    let evictions = "Entries evicted, by cause"
    let remote = "Remote tier lookups that failed, by kind"
    let moved = "Bytes moved to and from the remote tier"
    let (family, help, unit, label): (String, String, String?, (String, String))
    switch counter {
    case .hitsLocal: (family, help, unit, label) = ("hits", hits, nil, ("tier", "local"))
    case .hitsReadOnly: (family, help, unit, label) = ("hits", hits, nil, ("tier", "read_only"))
    case .remoteHits: (family, help, unit, label) = ("hits", hits, nil, ("tier", "remote"))
    case .failuresNetwork, .failuresTLS, .failuresAuth, .failuresProtocol, .failuresHTTP,
      .failuresNotImage, .failuresLocal:
      let kind = String(counter.rawValue.dropFirst("failures_".count))
      (family, help, unit, label) = ("failures", failures, nil, ("class", kind))
    case .evictionsAge, .evictionsSize, .evictionsCount, .evictionsRemove, .evictionsClear:
      let cause = String(counter.rawValue.dropFirst("evictions_".count))
      (family, help, unit, label) = ("evictions", evictions, nil, ("cause", cause))
    case .remoteErrors:
      (family, help, unit, label) = ("remote_errors", remote, nil, ("kind", "error"))
    case .remoteTimeouts:
      (family, help, unit, label) = ("remote_errors", remote, nil, ("kind", "timeout"))
    case .remoteCorrupt:
      (family, help, unit, label) = ("remote_errors", remote, nil, ("kind", "corrupt"))
    case .remoteBytesDown:
      (family, help, unit, label) = (
        "remote_transferred_bytes", moved, "bytes", ("direction", "down")
      )
    case .remoteBytesUp:
      (family, help, unit, label) = (
        "remote_transferred_bytes", moved, "bytes", ("direction", "up")
      )
    default: return nil
    }
    return Place(family: "imgcache_" + family, help: help, unit: unit, label: label)
  }

  /// The help of a counter in a family of its own.
  private static func help(of counter: Counter) -> String {
    switch counter {
    case .lookups: "URLs looked up by fetch and prefetch"
    case .misses: "Lookups the cache could not answer"
    case .downloads: "Bodies downloaded and stored"
    case .waitedForProcess: "Downloads waited for in another process instead of made"
    case .notModified: "Revalidations the origin answered 304 Not Modified"
    case .servedStale: "Stale copies served when the origin failed"
    case .notStored: "Bodies downloaded and not stored"
    case .blacklisted: "Requests not sent: they failed recently"
    case .disallowed: "URLs refused by robots.txt or X-Robots-Tag"
    case .robotsFetches: "robots.txt files fetched"
    case .orphansSwept: "Files without an entry removed"
    case .temporariesSwept: "Abandoned temporary files removed"
    case .partialsGivenUp: "Partial bodies given up"
    case .cleans: "Cleans run"
    case .derivations: "Variants derived"
    case .variantHits: "Variants served from the cache"
    case .derivationFailures: "Variants that could not be derived"
    case .remoteMisses: "Remote tier lookups that found nothing"
    case .remoteWrites: "Bodies written to the remote tier"
    default: counter.rawValue.replacing("_", with: " ")
    }
  }
}

extension CacheMetrics {
  /// Each remote backend's counters (``CacheStatistics/remotes``), labelled by `backend`.
  fileprivate static func backends(_ remotes: [String: [Counter: Int64]]) -> [MetricFamily] {
    var operations = MetricFamily(
      "imgcache_remote_backend_operations", .counter,
      help: "Remote tier operations of each backend, by outcome", samples: [])
    var bytes = MetricFamily(
      "imgcache_remote_backend_transferred_bytes", .counter,
      help: "Bytes moved to and from each remote backend", unit: "bytes", samples: [])
    for backend in remotes.keys.sorted() {
      let counts = remotes[backend] ?? [:]
      for counter in Counter.remote {
        let value = MetricSample.Value.integer(max(0, counts[counter] ?? 0))
        switch counter {
        case .remoteBytesDown, .remoteBytesUp:
          let direction = counter == .remoteBytesDown ? "down" : "up"
          bytes.samples.append(
            MetricSample(value, labels: [("backend", backend), ("direction", direction)]))
        default:
          let outcome = String(counter.rawValue.dropFirst("remote_".count))
          operations.samples.append(
            MetricSample(value, labels: [("backend", backend), ("outcome", outcome)]))
        }
      }
    }
    return [operations, bytes]
  }

  /// The sizes, the hit ratio and when counting started.
  fileprivate static func gauges(_ statistics: CacheStatistics, totals: CacheTotals)
    -> [MetricFamily]
  {
    func gauge(_ name: String, _ help: String, unit: String? = nil, _ value: MetricSample.Value?)
      -> MetricFamily
    {
      MetricFamily(
        name, .gauge, help: help, unit: unit, samples: value.map { [MetricSample($0)] } ?? [])
    }
    let seconds = { (date: Date?) in date.map { MetricSample.Value.real($0.timeIntervalSince1970) }
    }
    return [
      gauge("imgcache_entries", "Entries in the cache", .integer(Int64(totals.entries))),
      gauge(
        "imgcache_size_bytes", "Bytes of the cached bodies", unit: "bytes", .integer(totals.bytes)),
      gauge(
        "imgcache_allocated_bytes", "Bytes the cached bodies take on disk", unit: "bytes",
        .integer(totals.allocated)),
      gauge(
        "imgcache_hit_ratio", "Hits over lookups (absent before the first lookup)",
        statistics.hitRatio.map { .real($0) }),
      gauge(
        "imgcache_counting_since_timestamp_seconds",
        "When counting started: the cache's creation or the last zeroing (Unix time)",
        unit: "seconds", seconds(statistics.since)),
      gauge(
        "imgcache_counters_zeroed_timestamp_seconds",
        "When the counters were last zeroed (Unix time; absent if never)", unit: "seconds",
        seconds(statistics.zeroed)),
    ]
  }
}

extension DiskCache {
  /// `statistics` and `totals` as metrics in `format`, every sample labelled with this cache's
  /// directory (`cache`).
  package func metricsText(
    _ statistics: CacheStatistics, totals: CacheTotals, as format: Exposition
  ) -> String {
    format.text(
      CacheMetrics.families(statistics, totals: totals), common: [("cache", layout.rootPath)])
  }

  /// Writes the metrics (the prometheus form, which node_exporter's textfile collector reads)
  /// to `DIR/imgcache-<12 hexadecimal digits of the MD5 of the cache's path>.prom` through a
  /// temporary file in `directory` and a rename: a scrape reads the whole of the last one.
  /// Returns the file's path.
  package func writeMetrics(
    _ statistics: CacheStatistics, totals: CacheTotals, into directory: String
  ) throws -> String {
    let name = "imgcache-" + MD5.hex(of: layout.rootPath).prefix(12) + ".prom"
    let path = FileIO.path(name, in: directory)
    let text = metricsText(statistics, totals: totals, as: .prometheus)
    do {
      try FileIO.writeAtomically(Data(text.utf8), to: path)
    } catch {
      throw CacheError.io("cannot write the metrics to \(directory)", error)
    }
    return path
  }
}
