import FoundationEssentials

extension JobStatus {
  /// URLs finished a second since the first shard was taken, when any finished by `now`.
  public func urlsPerSecond(at now: Date) -> Double? {
    guard let started, counts.urls > 0 else { return nil }
    let elapsed = now.timeIntervalSince(started)
    return elapsed > 0 ? Double(counts.urls) / elapsed : nil
  }

  /// Seconds until every URL is finished at the rate so far: nil when the job is not open,
  /// nothing is left, or there is no rate yet.
  public func etaSeconds(at now: Date) -> Double? {
    let left = Double(urls) - Double(counts.urls)
    guard state == "open", left > 0, let rate = urlsPerSecond(at: now) else { return nil }
    return left / rate
  }
}

/// A job's state as metric families (docs/design.md, Metrics), every sample of the job's own
/// labelled `job_name` (Prometheus keeps `job` for its scrape's): shards by state, URLs by outcome, failures by class, the rate, the time left,
/// the workers heard from and the shards taken over. Counts read from Redis are outside
/// values: a failure class imgcache does not write is counted as `other`, never a label of its
/// own.
package enum JobMetrics {
  /// The families of job `job` in `status` at `now`, then the fleet's paused hosts (no job's
  /// label: they are the fleet's, the same under every job).
  package static func families(_ status: JobStatus, job: String, at now: Date) -> [MetricFamily] {
    let own = jobFamilies(status, at: now).map { family in
      var family = family
      family.samples = family.samples.map { sample in
        var sample = sample
        sample.labels.insert(("job_name", job), at: 0)
        return sample
      }
      return family
    }
    return own + fleetFamilies(status.pausedHosts)
  }

  private static func jobFamilies(_ status: JobStatus, at now: Date) -> [MetricFamily] {
    let counts = status.counts
    let inProgress = status.inProgress.values.reduce(Int64(0)) { $0.addingSaturating($1) }
    let takeovers = status.takeovers.values.reduce(Int64(0)) { $0.addingSaturating($1) }
    func integer(_ value: Int) -> MetricSample.Value { .integer(Int64(value)) }
    return [
      MetricFamily(
        "imgcache_job_open", .gauge, help: "1 while the job is open, 0 once cancelled",
        samples: [MetricSample(.integer(status.state == "open" ? 1 : 0))]),
      MetricFamily(
        "imgcache_job_urls", .gauge, help: "URLs submitted",
        samples: [MetricSample(.integer(status.urls))]),
      MetricFamily(
        "imgcache_job_shards", .gauge, help: "Shards, by state",
        samples: [
          ("done", status.done), ("pending", status.pending), ("in_progress", inProgress),
          ("dead", status.dead),
        ].map { MetricSample(.integer($0.1), labels: [("state", $0.0)]) }),
      MetricFamily(
        "imgcache_job_urls_finished", .counter, help: "URLs finished, by outcome",
        samples: [
          ("stored", counts.stored), ("failed", counts.failures),
          ("disallowed", counts.disallowed), ("not_stored", counts.notStored),
        ].map { MetricSample(integer($0.1), labels: [("outcome", $0.0)]) }),
      MetricFamily(
        "imgcache_job_downloads", .counter, help: "URLs downloaded from their origin",
        samples: [MetricSample(integer(counts.downloaded))]),
      MetricFamily(
        "imgcache_job_downloaded_bytes", .counter, help: "Bytes downloaded", unit: "bytes",
        samples: [MetricSample(.integer(counts.bytes))]),
      MetricFamily(
        "imgcache_job_failures", .counter, help: "URLs failed, by class of failure",
        samples: failures(counts.failed)),
    ] + progress(status, at: now, takeovers: takeovers)
  }

  /// The rate, the time left, the workers and the takeovers.
  private static func progress(_ status: JobStatus, at now: Date, takeovers: Int64)
    -> [MetricFamily]
  {
    [
      MetricFamily(
        "imgcache_job_urls_per_second", .gauge, help: "URLs finished a second since the start",
        samples: status.urlsPerSecond(at: now).map { [MetricSample(.real($0))] } ?? []),
      MetricFamily(
        "imgcache_job_eta_seconds", .gauge, help: "Time left at the rate so far", unit: "seconds",
        samples: status.etaSeconds(at: now).map { [MetricSample(.real($0))] } ?? []),
      MetricFamily(
        "imgcache_job_workers", .gauge, help: "Workers heard from within three leases",
        samples: [MetricSample(.integer(Int64(status.workers.count)))]),
      MetricFamily(
        "imgcache_job_takeovers", .counter,
        help: "Shards taken over because their worker's lease lapsed",
        samples: [MetricSample(.integer(takeovers))]),
    ]
  }

  /// The hosts the fleet holds paused, when known: their number, and the longest pauses.
  private static func fleetFamilies(_ paused: [String: Double]?) -> [MetricFamily] {
    guard let paused else { return [] }
    return [
      MetricFamily(
        "imgcache_fleet_paused_hosts", .gauge, help: "Hosts the fleet holds paused now",
        samples: [MetricSample(.integer(Int64(paused.count)))]),
      MetricFamily(
        "imgcache_fleet_host_pause_seconds", .gauge,
        help: "Time left of a host's pause (the \(pausedHostsShown) longest)", unit: "seconds",
        samples: longestPauses(paused).map {
          MetricSample(.real($0.value), labels: [("host", $0.key)])
        }),
    ]
  }

  /// How many paused hosts are labelled: a bounded label, however many the fleet pauses.
  package static let pausedHostsShown = 100

  /// The ``pausedHostsShown`` longest pauses, longest first (then by name).
  package static func longestPauses(_ hosts: [String: Double]) -> [(key: String, value: Double)] {
    Array(hosts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(pausedHostsShown))
  }

  /// The failure classes imgcache writes (``ShardCounts/failureClass(kind:httpStatus:)``).
  static let classes: Set<String> = Set(
    CacheError.Kind.allCases.map(\.rawValue) + ["http_4xx", "http_5xx"])

  private static func failures(_ failed: [String: Int]) -> [MetricSample] {
    var known = [String: Int64]()
    for (name, count) in failed {
      let label = classes.contains(name) ? name : "other"
      known[label, default: 0] = known[label, default: 0].addingSaturating(Int64(count))
    }
    return known.keys.sorted().map {
      MetricSample(.integer(known[$0] ?? 0), labels: [("class", $0)])
    }
  }
}
