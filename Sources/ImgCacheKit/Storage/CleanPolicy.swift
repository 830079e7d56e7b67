import Foundation

/// The limits `clean` enforces (SDWebImage's `deleteOldFiles`, docs/design.md, Cache semantics).
public struct CleanPolicy: Sendable, Equatable {
  /// Entries whose last access is at or before now − `maxAge` expire. Negative means never;
  /// zero means everything. The default is 7 days.
  public var maxAge: TimeInterval = 7 * 86_400
  /// Allocated bytes above which the least recently used entries are trimmed. Zero (the
  /// default) means no limit.
  public var maxSize: Int64 = 0
  /// The fraction of `maxSize` (and `maxEntries`) a trim goes strictly below. The default is 0.5.
  public var target: Double = 0.5
  /// Entry count above which the least recently used entries are trimmed. Zero (the default)
  /// means no limit.
  public var maxEntries: Int = 0
  /// How old a file in `tmp/` must be before it counts as stale. The default is one hour.
  public var staleTemporaryAge: TimeInterval = 3_600

  /// The default policy.
  public init() {}
}

/// What `clean` removed (or, in a dry run, would remove) and what remains.
public struct CleanReport: Sendable, Equatable {
  /// Entries removed by age (or per-entry expiry), when the clean was asked to list them.
  public var expired: [RemovedEntry] = []
  /// Entries removed, least recently used first, to get under the size or count limit, when
  /// the clean was asked to list them.
  public var trimmed: [RemovedEntry] = []
  /// How many entries expired, and their bytes (listed or not).
  public var expiredTotal = RemovalTotal()
  /// How many entries were trimmed, and their bytes (listed or not).
  public var trimmedTotal = RemovalTotal()
  /// Files in `data/` without a row, removed.
  public var orphanFiles: [String] = []
  /// Rows whose file was missing, dropped.
  public var missingFiles: [String] = []
  /// Stale files in `tmp/`, removed.
  public var staleTemporaries: [String] = []
  /// Links found where folders of the cache belong (`data/ab`, `tmp`): left alone, never
  /// entered.
  public var foreign: [String] = []
  /// The totals after the clean (as they would be, in a dry run).
  public var remaining: CacheTotals = .zero
  /// Whether nothing was changed.
  public var dryRun: Bool = false
}

/// What `clear` removed (or would remove).
public struct ClearReport: Sendable, Equatable {
  /// The totals before the clear.
  public var removed: CacheTotals
  /// Failed URLs forgotten.
  public var failedURLs: Int
  /// Whether nothing was changed.
  public var dryRun: Bool
  /// Where a damaged index was moved aside, when it was.
  public var damagedIndex: String? = nil
}

/// How many entries a step of `clean` removed, and their bytes.
public struct RemovalTotal: Sendable, Equatable {
  /// Entries removed.
  public var entries = 0
  /// Their bytes.
  public var bytes: Int64 = 0

  /// `entries` entries of `bytes` bytes.
  public init(entries: Int = 0, bytes: Int64 = 0) {
    self.entries = entries
    self.bytes = bytes
  }

  mutating func add(_ entry: RemovedEntry) {
    entries += 1
    bytes += entry.size
  }
}

/// One entry a `clean` removed (or would remove), handed over as it goes.
public enum CleanRemoval: Sendable {
  /// Expired by age (or its own expiry).
  case expired(RemovedEntry)
  /// Trimmed, least recently used first, to get under a limit.
  case trimmed(RemovedEntry)
}
