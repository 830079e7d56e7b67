import FoundationEssentials

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
  /// Files in `data/` without a row, removed: how many, and the first few (`ab/<name>`).
  public var orphanFiles = CountedExamples()
  /// Rows whose file was missing, dropped: how many, and the first few files.
  public var missingFiles = CountedExamples()
  /// Stale files in `tmp/` (and trash left by a killed `clear`), removed: how many, and the
  /// first few names.
  public var staleTemporaries = CountedExamples()
  /// Links found where folders of the cache belong (`data/ab`, `tmp`): left alone, never
  /// entered. Each once, sorted.
  public private(set) var foreign: [String] = []
  /// The totals after the clean (as they would be, in a dry run).
  public var remaining: CacheTotals = .zero
  /// Whether nothing was changed.
  public var dryRun: Bool = false
}

extension CleanReport {
  /// Adds `paths` to ``foreign``, each once.
  mutating func noteForeign(_ paths: [String]) {
    guard !paths.isEmpty else { return }
    foreign = Array(Set(foreign + paths)).sorted()
  }
}

/// How many of something were found, and the first few: a report's memory stays flat whatever
/// the damage (a clean of a cache whose index was lost meets every file as an orphan).
public struct CountedExamples: Sendable, Equatable {
  /// How many.
  public var count = 0
  /// The first few (at most ``limit``), as URLs or files.
  public var examples = [String]()

  /// The most examples kept.
  public static let limit = 10

  /// Counts `example`, and keeps it while there is room.
  mutating func add(_ example: String) {
    count += 1
    if examples.count < Self.limit { examples.append(example) }
  }

  /// Counts each of `examples`, keeping as many as there is room for.
  mutating func add(contentsOf examples: some Sequence<String>) {
    for example in examples { add(example) }
  }

  /// Adds `other`'s count and as many of its examples as there is room for.
  mutating func merge(_ other: CountedExamples) {
    count += other.count
    examples += other.examples.prefix(Self.limit - examples.count)
  }
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
