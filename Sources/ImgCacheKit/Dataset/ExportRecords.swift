import FoundationEssentials

/// How samples and shards are named, as img2dataset names them (docs/design.md, Export):
/// shard numbers zero-padded to 5 digits; a sample's key is its shard's number then its index
/// in the shard, padded to the digits the shard size needs (`000010003`: shard 1, sample 3
/// of shards of 10,000).
public struct ShardNaming: Sendable, Equatable {
  /// The digits of a shard's number (more when a number needs them).
  public static let shardDigits = 5
  /// The digits of a sample's index within its shard.
  public let sampleDigits: Int

  /// The naming of shards of `shardSize` samples.
  public init(shardSize: Int) {
    var digits = 0
    var reach = 1
    while reach < shardSize {
      reach *= 10
      digits += 1
    }
    sampleDigits = digits
  }

  /// The name of shard `number` (`00003`).
  public func shardName(_ number: Int) -> String { Self.name(ofShard: number) }

  /// The name of shard `number` (`00003`).
  public static func name(ofShard number: Int) -> String { padded(number, shardDigits) }

  /// The key of sample `index` of shard `number`.
  public func key(shard number: Int, index: Int) -> String {
    shardName(number) + (sampleDigits == 0 ? "" : Self.padded(index, sampleDigits))
  }

  private static func padded(_ value: Int, _ digits: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}

/// What became of one row of an export.
public enum SampleStatus: String, Sendable, Codable, CaseIterable {
  case success
  /// Not fetched, refused, not cached with `--offline`, or its hash differs from the table's.
  case failedToDownload = "failed_to_download"
  /// Fetched, but its variant could not be made.
  case failedToResize = "failed_to_resize"
  /// The same URL (`--dedup url`) or body (`--dedup sha256`) as an earlier sample.
  case duplicate
}

/// A sample's metadata: its `.json` in the shard and its row of the shard's table. The saved
/// columns come first, then img2dataset's fields; absent values are null.
struct SampleRecord: Encodable {
  var url: String
  var caption: String?
  var captionColumn: Bool
  var saved: [(String, TableValue)]
  var key: String
  var status: SampleStatus
  var errorMessage: String?
  var width: Int?
  var height: Int?
  var originalWidth: Int?
  var originalHeight: Int?
  var sha256: String?

  func encode(to encoder: any Encoder) throws {
    var object = encoder.container(keyedBy: TableKey.self)
    try object.encode(url, forKey: TableKey("url"))
    if captionColumn { try object.encode(caption, forKey: TableKey("caption")) }
    for (name, value) in saved where !Self.fixed.contains(name) {
      try object.encode(value, forKey: TableKey(name))
    }
    try object.encode(key, forKey: TableKey("key"))
    try object.encode(status, forKey: TableKey("status"))
    try object.encode(errorMessage, forKey: TableKey("error_message"))
    try object.encode(width, forKey: TableKey("width"))
    try object.encode(height, forKey: TableKey("height"))
    try object.encode(originalWidth, forKey: TableKey("original_width"))
    try object.encode(originalHeight, forKey: TableKey("original_height"))
    try object.encode(sha256, forKey: TableKey("sha256"))
  }

  /// The fields a saved column cannot replace.
  static let fixed: Set<String> = [
    "url", "caption", "key", "status", "error_message", "width", "height", "original_width",
    "original_height", "sha256",
  ]
}

/// A shard's `NNNNN_stats.json`, img2dataset's fields and `duplicates`; its presence marks
/// the shard whole.
public struct ShardStats: Codable, Sendable, Equatable {
  /// The shard's number.
  public var shard: Int
  /// Its rows.
  public var count: Int
  public var successes: Int
  public var failedToDownload: Int
  public var failedToResize: Int
  public var duplicates: Int
  /// Seconds spent on the shard.
  public var duration: Double
  /// Unix seconds.
  public var startTime: Double
  public var endTime: Double
  /// How many rows ended with each status or error message (`success` included).
  public var statusDict: [String: Int]

  enum CodingKeys: String, CodingKey {
    case shard, count, successes, duplicates, duration
    case failedToDownload = "failed_to_download"
    case failedToResize = "failed_to_resize"
    case startTime = "start_time"
    case endTime = "end_time"
    case statusDict = "status_dict"
  }

  /// The stats of shard `shard` before any row.
  init(shard: Int, start: Double) {
    (self.shard, count, successes, failedToDownload, failedToResize, duplicates) =
      (shard, 0, 0, 0, 0, 0)
    (duration, startTime, endTime, statusDict) = (0, start, start, [:])
  }

  /// Counts one row.
  mutating func count(_ status: SampleStatus, message: String?) {
    count += 1
    switch status {
    case .success: successes += 1
    case .failedToDownload: failedToDownload += 1
    case .failedToResize: failedToResize += 1
    case .duplicate: duplicates += 1
    }
    // At most 1,000 distinct messages: a message names its cause, rarely its URL.
    let name = status == .success ? "success" : (message ?? status.rawValue)
    if statusDict[name] != nil || statusDict.count < 1_000 {
      statusDict[name, default: 0] += 1
    }
  }
}

/// The fields a table's row adds to a URL's record (`prefetch --json`, `job manifest`, with
/// `--caption-col` or `--save-column`): its caption and its saved columns by name, their keys
/// as the table has them.
public struct RowFields: Encodable {
  /// The row's caption; null when it has none.
  @Nullable public var caption: String?
  /// Each saved column's value by its name (null when the row lacks it).
  public var columns: [String: TableValue]

  /// The fields of `notes` for the saved columns `saved`, in the order they were named.
  public init(_ notes: RowNotes?, saved: [String]) {
    caption = notes?.caption
    var columns = [String: TableValue]()
    for (index, name) in saved.enumerated() {
      columns[name] = notes.flatMap { index < $0.saved.count ? $0.saved[index] : nil } ?? .null
    }
    self.columns = columns
  }
}
