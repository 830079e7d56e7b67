import FoundationEssentials

/// The persistent counters of `stats`, kept in the `counter` table. A counter that counts a
/// change of the index is added in that change's transaction; one that counts something with
/// no write of its own (a miss, a refusal, a network failure) is noted in memory and added in
/// the process's next write transaction, at the latest when the command closes the index.
/// Every addition is an upsert (`value = value + n`), so concurrent processes never lose one.
public enum Counter: String, Sendable, CaseIterable, Codable {
  /// URLs looked up by `fetch` and `prefetch` (not `query`, which does not use the cache).
  case lookups
  /// Lookups served by this cache.
  case hitsLocal = "hits_local"
  /// Lookups served by a read-only directory.
  case hitsReadOnly = "hits_read_only"
  /// Lookups that found nothing (then downloaded, or an offline miss).
  case misses
  /// Bodies downloaded and stored.
  case downloads
  /// Downloads left to another process that was getting the same URL (or had just got it):
  /// served from the cache once its lock was released, without a request of their own.
  case waitedForProcess = "waited_for_process"
  /// Bytes of the bodies downloaded and stored.
  case bytesDownloaded = "bytes_downloaded"
  /// Bytes of the bodies served from this cache or a read-only directory.
  case bytesServed = "bytes_served"
  /// Revalidations answered 304 Not Modified.
  case notModified = "not_modified"
  /// Stored copies served because a revalidation or refresh failed (stale-if-error).
  case servedStale = "served_stale"
  /// Bodies delivered but not cached because the origin said `no-store` (`freshness = http`).
  case notStored = "not_stored"
  /// Requests refused without the network because they failed recently.
  case blacklisted
  /// With `--robots`: URLs not downloaded because robots.txt disallows them or an
  /// `X-Robots-Tag` opted out (docs/design.md, Politeness).
  case disallowed
  /// robots.txt files requested (once per origin a day, with `--robots`).
  case robotsFetches = "robots_fetches"
  /// Failed downloads, by class (the exit status they give).
  case failuresNetwork = "failures_network"
  case failuresTLS = "failures_tls"
  case failuresAuth = "failures_auth"
  case failuresProtocol = "failures_protocol"
  case failuresHTTP = "failures_http"
  case failuresNotImage = "failures_not_image"
  case failuresLocal = "failures_local"
  /// Entries removed by `clean`: expired by age.
  case evictionsAge = "evictions_age"
  /// Entries removed by `clean` to get under `max_size`.
  case evictionsSize = "evictions_size"
  /// Entries removed by `clean` to get under `max_entries`.
  case evictionsCount = "evictions_count"
  /// Entries removed by `remove`.
  case evictionsRemove = "evictions_remove"
  /// Entries removed by `clear`.
  case evictionsClear = "evictions_clear"
  /// Files without an index row deleted by `clean` or `verify --repair`.
  case orphansSwept = "orphans_swept"
  /// Stale temporary files deleted by `clean`.
  case temporariesSwept = "temporaries_swept"
  /// Kept partial bodies given up to make room: a store, a download or `clean` met a full
  /// disk (or `clean` a size limit the partials took).
  case partialsGivenUp = "partials_given_up"
  /// `clean` runs that completed.
  case cleans
  /// Variants derived from an original (docs/design.md, Variants).
  case derivations
  /// Bytes of the variants derived.
  case bytesDerived = "bytes_derived"
  /// Variant lookups served by a stored variant (also counted as hits).
  case variantHits = "variant_hits"
  /// Derivations that failed: an original over the limits, one that cannot be derived
  /// (blocked or broken), or a local error.
  case derivationFailures = "derivation_failures"
  /// Remote tier, every backend together (each backend's own under ``remoteName(_:_:)``):
  /// lookups served by a remote (verified, then copied into this cache).
  case remoteHits = "remote_hits"
  /// Remote lookups that found nothing.
  case remoteMisses = "remote_misses"
  /// Remote operations that failed (refused, 5xx, a broken reply); the backend is not asked
  /// again by that process.
  case remoteErrors = "remote_errors"
  /// Remote operations that timed out.
  case remoteTimeouts = "remote_timeouts"
  /// Remote objects refused as damaged or mismatched (a bad trailer, a size or SHA-256 that
  /// differs, another key's object, hostile metadata): a miss, and the backend stays in use.
  case remoteCorrupt = "remote_corrupt"
  /// Bodies written back to remotes after a download (`remote push` included).
  case remoteWrites = "remote_writes"
  /// Bytes received from remotes.
  case remoteBytesDown = "remote_bytes_down"
  /// Bytes sent to remotes.
  case remoteBytesUp = "remote_bytes_up"

  /// The remote counters, each also kept per backend.
  public static let remote: [Counter] = [
    .remoteHits, .remoteMisses, .remoteErrors, .remoteTimeouts, .remoteCorrupt, .remoteWrites,
    .remoteBytesDown, .remoteBytesUp,
  ]

  /// The name of `counter` for the backend shown as `backend` (`remote:<backend>:<counter>`).
  public static func remoteName(_ backend: String, _ counter: Counter) -> String {
    "remote:\(backend):\(counter.rawValue)"
  }

  /// The counter of a failed download of `kind`, if it is one that is counted.
  public static func failure(_ kind: CacheError.Kind) -> Counter? {
    switch kind {
    case .network: .failuresNetwork
    case .tls: .failuresTLS
    case .auth: .failuresAuth
    case .protocolError: .failuresProtocol
    case .httpStatus, .rateLimited: .failuresHTTP
    case .notAnImage: .failuresNotImage
    case .localIO: .failuresLocal
    case .disallowed: .disallowed
    case .invalidInput, .blacklisted, .busy, .cancelled, .tooLarge, .cannotDerive,
      .digestMismatch:
      nil
    }
  }

  /// The row holding when counting started (the cache's creation, or the last zeroing).
  static let sinceName = "stats_since"
  /// The row holding when the counters were last zeroed.
  static let zeroedName = "stats_zeroed"
}

/// The counters of a cache and when they started.
public struct CacheStatistics: Sendable, Equatable {
  /// Every counter (zero when never counted).
  public var counts: [Counter: Int64]
  /// When counting started: the cache's creation, or the last `stats --zero`.
  public var since: Date?
  /// When the counters were last zeroed, if ever.
  public var zeroed: Date?
  /// The remote counters of each backend that counted any, by its printed URL.
  public var remotes: [String: [Counter: Int64]] = [:]

  /// The value of `counter`.
  public subscript(counter: Counter) -> Int64 { counts[counter] ?? 0 }

  /// Hits (every tier) over lookups, when there were lookups.
  public var hitRatio: Double? {
    let lookups = self[.lookups]
    guard lookups > 0 else { return nil }
    // In doubles: counts read from a file never overflow a sum.
    let hits = Double(self[.hitsLocal]) + Double(self[.hitsReadOnly]) + Double(self[.remoteHits])
    return hits / Double(lookups)
  }
}

extension Index {
  /// The counters, read in one transaction.
  package func statistics() throws -> CacheStatistics {
    // The counts of hits left in the use journal first, as a write that waits briefly.
    if exists && journal.hasContent { try? writeNotedBriefly() }
    return try read(orIfMissing: CacheStatistics(counts: [:])) { db in
      var statistics = CacheStatistics(counts: [:])
      for row in try db.rows("SELECT name, value FROM counter") {
        let name: String = try row.value(0)
        let value: Int64 = try row.value(1)
        switch name {
        case Counter.sinceName: statistics.since = Date(timeIntervalSince1970: Double(value))
        case Counter.zeroedName: statistics.zeroed = Date(timeIntervalSince1970: Double(value))
        default:
          if let counter = Counter(rawValue: name) {
            statistics.counts[counter] = value
          } else if name.hasPrefix("remote:"), let colon = name.lastIndex(of: ":"),
            let counter = Counter(rawValue: String(name[name.index(after: colon)...]))
          {
            let backend = String(name[name.index(name.startIndex, offsetBy: 7)..<colon])
            statistics.remotes[backend, default: [:]][counter] = value
          }
        }
      }
      return statistics
    }
  }

  /// Zeroes every counter (not the totals) and records `time` as the start of counting.
  package func zeroStatistics(at time: Date) throws {
    discardNotedCounts()
    try writeIfExists(orIfMissing: ()) { db in
      try db.execute(sql: "DELETE FROM counter")
      let moment = Int64(time.timeIntervalSince1970)
      for name in [Counter.sinceName, Counter.zeroedName] {
        try db.execute(
          sql: "INSERT INTO counter (name, value) VALUES (?, ?)", [name, moment])
      }
    }
  }
}
