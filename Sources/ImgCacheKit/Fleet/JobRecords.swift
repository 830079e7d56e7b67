import FoundationEssentials

/// What a job asks of its workers besides its URLs: the prefetch policy values its submitter
/// gave (by policy key name), the variant as preset text, and two flags. Kept in the job's
/// record as JSON; read back through the untrusted-input boundary (a worker checks every value
/// as it checks its own flags). Never holds credentials: headers, user names and cookie jars
/// stay with each worker.
public struct JobOptions: Codable, Sendable, Equatable {
  /// Policy values by key name (`rate_per_host`, `jobs`, …).
  public var policy: [String: String]
  /// The variant each URL is fetched as (a preset, `320x320^ webp q=75`), or nil.
  @Nullable public var variant: String?
  /// Whether any body is accepted, not only images (`--any`).
  public var acceptAnyBody: Bool
  /// Whether originals are dropped once their variant is stored.
  public var discardOriginal: Bool
  /// The table's caption column, when its rows' captions go into the manifest.
  @Nullable public var captionColumn: String?
  /// The table's saved columns, in order, whose values go into the manifest.
  public var savedColumns: [String]

  /// Options with these values.
  public init(
    policy: [String: String] = [:], variant: String? = nil, acceptAnyBody: Bool = false,
    discardOriginal: Bool = false, captionColumn: String? = nil, savedColumns: [String] = []
  ) {
    (self.policy, self.variant) = (policy, variant)
    (self.acceptAnyBody, self.discardOriginal) = (acceptAnyBody, discardOriginal)
    (self.captionColumn, self.savedColumns) = (captionColumn, savedColumns)
  }

  /// Whether the manifest keeps each row's caption and saved columns.
  public var keepsRows: Bool { captionColumn != nil || !savedColumns.isEmpty }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    policy = try container.decodeIfPresent([String: String].self, forKey: .policy) ?? [:]
    variant = try container.decodeIfPresent(String.self, forKey: .variant)
    acceptAnyBody = try container.decodeIfPresent(Bool.self, forKey: .acceptAnyBody) ?? false
    discardOriginal = try container.decodeIfPresent(Bool.self, forKey: .discardOriginal) ?? false
    captionColumn = try container.decodeIfPresent(String.self, forKey: .captionColumn)
    savedColumns = try container.decodeIfPresent([String].self, forKey: .savedColumns) ?? []
  }

  private enum CodingKeys: String, CodingKey {
    case policy, variant, acceptAnyBody, discardOriginal, captionColumn, savedColumns
  }

  /// The options as kept in the record.
  var json: String {
    RecordJSON.text(self)
  }

  /// The options a record holds; `.network` (a broken queue) when they cannot be read.
  static func read(_ data: Data, job: String) throws -> JobOptions {
    guard let options = RecordJSON.value(JobOptions.self, from: data) else {
      throw CacheError(.network, "job \(job): its recorded options cannot be read")
    }
    return options
  }
}

/// What one shard came to, counted by its worker and kept beside its manifest. Counts read
/// back from Redis are outside numbers: they are added with saturation, never trapping.
public struct ShardCounts: Codable, Sendable, Equatable {
  /// URLs finished.
  public var urls = 0
  /// URLs stored (downloaded, derived, or already there locally or in the remote tier).
  public var stored = 0
  /// URLs downloaded from their origin.
  public var downloaded = 0
  /// URLs that failed, by error kind (`network`, `http_5xx`, `rate_limited`, …).
  public var failed = [String: Int]()
  /// URLs robots.txt or X-Robots-Tag refused.
  public var disallowed = 0
  /// URLs fetched but not stored (`no-store`).
  public var notStored = 0
  /// Bytes downloaded.
  public var bytes: Int64 = 0
  /// Seconds the shard took.
  public var seconds: Double = 0

  /// Empty counts.
  public init() {}

  /// A failure's class, as `job status` counts it and `job retry --class` names it: its
  /// kind, with `http_status` split into `http_4xx` and `http_5xx`.
  public static func failureClass(kind: String, httpStatus: Int?) -> String {
    guard kind == CacheError.Kind.httpStatus.rawValue, let status = httpStatus else { return kind }
    return status >= 500 ? "http_5xx" : "http_4xx"
  }

  /// Failed URLs of every kind.
  public var failures: Int { failed.values.reduce(0) { $0.addingSaturating($1) } }

  /// Adds `other`'s counts (saturating).
  public mutating func add(_ other: ShardCounts) {
    urls = urls.addingSaturating(other.urls)
    stored = stored.addingSaturating(other.stored)
    downloaded = downloaded.addingSaturating(other.downloaded)
    disallowed = disallowed.addingSaturating(other.disallowed)
    notStored = notStored.addingSaturating(other.notStored)
    for (kind, count) in other.failed {
      failed[kind] = failed[kind, default: 0].addingSaturating(count)
    }
    bytes = Checked.sum(bytes, other.bytes) ?? .max
    // At most about 30,000 years of worker time: a sum JSON can still write.
    if other.seconds.isFinite, other.seconds >= 0 { seconds = min(seconds + other.seconds, 1e12) }
  }

  var json: String {
    RecordJSON.text(self)
  }

  /// Counts from Redis; nil when unreadable (a shard's counts are then not summed).
  static func read(_ data: Data) -> ShardCounts? {
    guard var counts = RecordJSON.value(ShardCounts.self, from: data) else { return nil }
    // Negative counts are no counts.
    counts.failed = counts.failed.filter { $0.value >= 0 }
    guard counts.urls >= 0, counts.stored >= 0, counts.downloaded >= 0, counts.disallowed >= 0,
      counts.notStored >= 0, counts.bytes >= 0
    else { return nil }
    return counts
  }
}

/// Where a job stands, as `job status` shows it.
public struct JobStatus: Sendable {
  /// `open` or `cancelled`.
  public var state: String
  /// URLs and shards submitted, and the shard size.
  public var urls: Int64
  public var shards: Int64
  public var shardSize: Int64
  /// Shards done, dead, and held by a worker whose lease holds (by worker).
  public var done: Int64
  public var dead: Int64
  public var inProgress: [String: Int64]
  /// Shards not yet taken, or given back, or whose worker's lease lapsed.
  public var pending: Int64
  /// The counts of every shard done, summed.
  public var counts: ShardCounts
  /// When the job was submitted and its first shard taken.
  public var submitted: Date?
  public var started: Date?
  /// Workers heard from within three leases, with when.
  public var workers: [String: Date]
  /// Shards taken over because their worker's lease lapsed, by that worker: a sick worker
  /// shows here.
  public var takeovers: [String: Int64]
  /// The options workers use.
  public var options: JobOptions
  /// The hosts the fleet holds paused now, with the seconds left (``JobQueue/pausedHosts()``),
  /// when asked for and known; nil otherwise.
  public var pausedHosts: [String: Double]? = nil
}

/// The JSON of a job's record and counts in Redis: snake_case keys, sorted; one encoder and
/// one decoder for all of them (a shard's finish and `job status` use them per shard).
private enum RecordJSON {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return encoder
  }()
  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }()

  /// `value` as one line of JSON (`{}` should it not encode).
  static func text(_ value: some Encodable) -> String {
    (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// The value `data` holds, or nil.
  static func value<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
    try? decoder.decode(type, from: data)
  }
}
