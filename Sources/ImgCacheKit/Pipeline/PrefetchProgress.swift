import FoundationEssentials

/// Where a prefetch stands; passed to the progress handler after every URL.
public struct PrefetchProgress: Sendable, Equatable {
  /// URLs finished (any outcome).
  public var done = 0
  /// URLs read so far (the total, once ``inputFinished``).
  public var total = 0
  /// Duplicates skipped.
  public var duplicates = 0
  /// URLs of other shards skipped (`--shard K/N`).
  public var otherShards = 0
  /// Served from the cache.
  public var hits = 0
  /// Downloaded (including refreshed).
  public var downloaded = 0
  /// Variants derived (an original downloaded for one also counts in ``downloaded``).
  public var derived = 0
  /// Revalidated with 304.
  public var notModified = 0
  /// Offline misses.
  public var misses = 0
  /// Stored copies served because revalidation failed (stale-if-error).
  public var stale = 0
  /// Downloaded but not cached (`no-store`).
  public var notStored = 0
  /// Failed.
  public var failed = 0
  /// Not downloaded because robots.txt or `X-Robots-Tag` said so (`--robots`): neither
  /// failed nor to retry.
  public var disallowed = 0
  /// Bytes downloaded.
  public var bytes: Int64 = 0
  /// Seconds since the start.
  public var elapsed: TimeInterval = 0
  /// Whether all the input was read.
  public var inputFinished = false

  /// Bytes per second so far.
  public var rate: Double { elapsed > 0 ? Double(bytes) / elapsed : 0 }
}

/// The end of a prefetch.
public struct PrefetchSummary: Sendable {
  /// The final counts.
  public var progress: PrefetchProgress
  /// The first failures (at most ``kept``), in the order they happened; all of them go to the
  /// run's ``RetryList``.
  public var failures: [(url: String, error: CacheError)]
  /// How many URLs failed.
  public var failureCount = 0
  /// The first URLs (at most ``kept``) robots.txt or `X-Robots-Tag` refused, with why; all
  /// of them go to the run's ``RetryList``, commented out.
  public var disallowed = [(url: String, error: CacheError)]()
  /// The classes of every failure (the exit status folds them).
  public var failureKinds = Set<CacheError.Kind>()
  /// The first URLs (at most ``kept``) read but not finished because of a cancel, then (with a
  /// retry list) the input left unread; all of them go to the run's ``RetryList``.
  public var unfinished: [String]
  /// How many URLs were not finished.
  public var unfinishedCount = 0
  /// Whether the run was cancelled.
  public var cancelled: Bool
  /// How many failures and unfinished URLs a summary keeps (memory stays flat however many
  /// there are).
  public static let kept = 1_000
  /// Why reading the input stopped early, when it did (a line too long, a read error).
  public var inputError: CacheError?
}

/// One finished URL and where the run stands after it.
public struct PrefetchEvent: Sendable {
  /// The URL's result.
  public var result: FetchResult
  /// The counts after it.
  public var progress: PrefetchProgress
}
