import FoundationEssentials
import ImgCacheKit

/// Entries and bytes: `size --json`, and the totals inside `clean` and `clear` records.
struct TotalsRecord: Codable, Equatable {
  var entries: Int
  var size: Int64
  var diskSize: Int64

  init(_ totals: CacheTotals) {
    entries = totals.entries
    size = totals.bytes
    diskSize = totals.allocated
  }
}

/// `size --json`: the entries' totals and the temporary files beside them.
struct SizeRecord: Codable {
  var entries: Int
  var size: Int64
  var diskSize: Int64
  var temporaryFiles: Int
  var temporarySize: Int64

  init(_ totals: CacheTotals, temporary: (files: Int, bytes: Int64)) {
    entries = totals.entries
    size = totals.bytes
    diskSize = totals.allocated
    temporaryFiles = temporary.files
    temporarySize = temporary.bytes
  }
}

/// An entry removed (or that would be) by `remove`, `clean`.
struct RemovedRecord: Codable, Equatable {
  @Nullable var url: String?
  var key: String
  var file: String
  var size: Int64
  var diskSize: Int64
  @Nullable var lastAccess: Date?
  var dryRun: Bool

  init(_ entry: RemovedEntry, url: String? = nil, dryRun: Bool) {
    self.url = url ?? entry.url
    key = entry.key
    file = entry.file
    size = entry.size
    diskSize = entry.allocated
    lastAccess = entry.lastAccess
    self.dryRun = dryRun
  }
}

/// `clean --json`.
struct CleanRecord: Codable {
  struct Group: Codable {
    var count: Int
    var size: Int64
    /// Each entry, only when listed (`-v`; null otherwise): a clean of millions stays in flat
    /// memory.
    @Nullable var entries: [RemovedRecord]?

    init(_ total: RemovalTotal, _ entries: [RemovedEntry], listed: Bool, dryRun: Bool) {
      count = total.entries
      size = total.bytes
      self.entries = listed ? entries.map { RemovedRecord($0, dryRun: dryRun) } : nil
    }
  }

  struct Limits: Codable {
    var maxAgeSeconds: Double
    var maxSize: Int64
    var maxEntries: Int
    var target: Double
  }

  var expired: Group
  var trimmed: Group
  var orphans: Int
  var missing: Int
  var temporaries: Int
  /// Links where folders of the cache belong, left alone (`data/ab`, `tmp`).
  var foreign: [String]
  var remaining: TotalsRecord
  var dryRun: Bool
  var limits: Limits

  init(_ report: CleanReport, policy: CleanPolicy, listed: Bool) {
    expired = Group(report.expiredTotal, report.expired, listed: listed, dryRun: report.dryRun)
    trimmed = Group(report.trimmedTotal, report.trimmed, listed: listed, dryRun: report.dryRun)
    orphans = report.orphanFiles.count
    missing = report.missingFiles.count
    temporaries = report.staleTemporaries.count
    foreign = report.foreign
    remaining = TotalsRecord(report.remaining)
    dryRun = report.dryRun
    limits = Limits(
      maxAgeSeconds: policy.maxAge, maxSize: policy.maxSize, maxEntries: policy.maxEntries,
      target: policy.target)
  }
}

/// `clear --json` (and `clear --failed --json`, with only `failed_urls` and `dry_run`).
struct ClearRecord: Codable {
  @Nullable var removed: TotalsRecord?
  var failedUrls: Int
  var dryRun: Bool
}
