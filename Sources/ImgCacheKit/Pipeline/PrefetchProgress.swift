import Foundation

/// Where a prefetch stands; passed to the progress handler after every URL.
public struct PrefetchProgress: Sendable, Equatable {
  /// URLs finished (any outcome).
  public var done = 0
  /// URLs read so far (the total, once ``inputFinished``).
  public var total = 0
  /// Duplicates skipped.
  public var duplicates = 0
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
  /// Every failure, in the order they happened.
  public var failures: [(url: String, error: CacheError)]
  /// URLs read but not finished because of a cancel, then (when asked for) the input left
  /// unread.
  public var unfinished: [String]
  /// Whether the run was cancelled.
  public var cancelled: Bool
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
