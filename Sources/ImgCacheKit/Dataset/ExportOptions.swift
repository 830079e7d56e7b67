import FoundationEssentials

/// How an export lays out its shards.
public enum ExportFormat: String, Sendable, CaseIterable {
  /// `NNNNN.tar`, WebDataset's form: each sample's files together, grouped by key.
  case webdataset
  /// `NNNNN/`, a folder a shard holding each sample's files.
  case files
}

/// Which rows count as the same sample (`--dedup`).
public enum ExportDedup: String, Sendable, CaseIterable {
  /// One sample per distinct URL, over the whole table.
  case url
  /// One sample per distinct body (its SHA-256), over the shards this export writes or finds.
  case sha256
}

/// What an export makes (docs/design.md, Export).
public struct ExportOptions: Sendable {
  /// The folder the shards go to (made when missing); with a ``store``, where each is made
  /// before it is sent.
  public var directory: String
  /// Where whole shards are sent (`-o https://…`, `-o s3://…`), when not to the folder.
  public var store: ShardStore?
  public var format = ExportFormat.webdataset
  /// Rows a shard (img2dataset's `number_sample_per_shard`).
  public var shardSize = ExportOptions.defaultShardSize
  /// Only the shards numbered K modulo N (`--shard K/N`), for one of N machines.
  public var part: Shard?
  public var dedup: ExportDedup?
  /// The table's columns (the caption's, the saved ones, the hash's).
  public var columns = TableColumns()
  /// How each row's image is fetched: from the cache, or the network on a miss, as the
  /// original or a variant.
  public var fetch = FetchOptions()

  /// img2dataset's default shard size.
  public static let defaultShardSize = 10_000
  /// The largest shard size taken.
  public static let maxShardSize = 1_000_000

  /// An export to `directory`.
  public init(directory: String) { self.directory = directory }

  /// Whether shard `number` is this export's to write.
  func owns(_ number: Int) -> Bool { part.map { number % $0.count == $0.index } ?? true }
}

/// What an export reports as it goes.
public enum ExportEvent: Sendable {
  /// A shard was written whole.
  case written(ShardStats)
  /// A shard was whole already (a re-run), so was skipped.
  case wholeAlready(shard: Int)
  /// A row could not be used.
  case malformed(line: Int, reason: String)
}

/// What an export did.
public struct ExportSummary: Sendable, Equatable {
  /// Shards written by this run.
  public var written = 0
  /// Shards found whole and skipped.
  public var skipped = 0
  /// Shards left to other machines (`--shard K/N`).
  public var others = 0
  /// Rows of the shards written, by status.
  public var statuses = [SampleStatus: Int]()
  /// Rows that could not be used.
  public var malformed = 0
  /// Whether the export was cancelled before the end of the table.
  public var cancelled = false

  /// Rows of the shards written.
  public var samples: Int { statuses.values.reduce(0, +) }
}
