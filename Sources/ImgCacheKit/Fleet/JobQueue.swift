import FoundationEssentials

/// A job's work queue on Redis Streams (docs/fleet.md): its URL list cut into shards, one
/// stream entry each, taken by workers through a consumer group, held by a lease they renew,
/// taken over once a lease lapses, buried in a dead list past `max_deliveries`, acknowledged
/// with its manifest when done.
///
/// Keys, for a job `NAME` (``JobQueue/isValidName(_:)``): `imgcache:job:NAME` (a hash: the
/// record), `…:shards` (the stream; consumer group `workers`), `…:manifest` and `…:counts`
/// (hashes by shard number), `…:dead` (a hash by entry ID), `…:workers` (last heard, by worker).
public final class JobQueue: Sendable {
  /// One shard as a worker holds it.
  public struct Shard: Equatable, Sendable {
    /// Its stream entry.
    let id: StreamID
    /// Its number, from 0.
    public let index: Int
    /// Its URLs, in list order.
    public let urls: [String]
    /// What each URL's table row says of it, beside `urls`; nil when no row says anything.
    public var notes: [RowNotes?]? = nil
    /// How many times it was delivered, this time included.
    public let deliveries: Int
    /// Whether it holds URLs that failed before (`job retry`): a worker asks the origin
    /// again, whatever its failed-URL list says.
    public let retry: Bool

    /// Its URLs as a prefetch reads them, each with what its row says.
    public var items: [URLSourceItem] {
      guard let notes else { return urls.map { .url($0) } }
      return zip(urls, notes).map { ListedURL($0, notes: $1).item }
    }
  }

  /// What a worker asking for a shard got.
  public enum Taken: Equatable, Sendable {
    /// A shard to work on.
    case shard(Shard)
    /// Nothing waiting now.
    case none
    /// The job was cancelled: no shard is handed out.
    case cancelled
  }

  /// The job's name.
  public let name: String
  let client: any RedisCommands
  let record: String
  let stream: String
  var manifestKey: String { record + ":manifest" }
  var countsKey: String { record + ":counts" }
  var deadKey: String { record + ":dead" }
  var workersKey: String { record + ":workers" }
  var entriesKey: String { record + ":entries" }
  /// Shards taken over from a worker whose lease lapsed, by that worker.
  var takeoversKey: String { record + ":takeovers" }
  static let group = "workers"
  /// The most URLs a shard holds, and the most bytes a reply may have.
  public static let maxShardSize = 1_000_000
  static let maxReply: Int64 = 256 << 20

  /// The queue of job `name` on `client`; `.invalidInput` for a name that is not one.
  init(name: String, client: any RedisCommands) throws {
    guard Self.isValidName(name) else {
      throw CacheError(
        .invalidInput,
        "job name '\(name.containsControlCharacters ? "?" : name)': expected 1 to 64 letters, "
          + "digits, '.', '_' or '-'")
    }
    (self.name, self.client) = (name, client)
    record = "imgcache:job:\(name)"
    stream = "imgcache:job:\(name):shards"
  }

  /// The queue of job `name` on `queue` (a `redis://` or `redis+unix:` URL), else on the first
  /// Redis backend of `remote`; `.invalidInput` when there is none.
  public convenience init(name: String, queue: String?, remote: [RemoteSpec]) throws {
    try self.init(
      name: name, client: try FleetRedis.client(queue: queue, remote: remote, role: "queue"))
  }

  /// Whether `name` can name a job (it becomes part of Redis keys).
  public static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.utf8.count)
      && name.utf8.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
          || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
      }
  }

  func command(_ words: [RedisArgument], timeout: TimeInterval = 10) throws -> RedisValue {
    try client.call(words, deadline: RedisDeadline(seconds: timeout), maxReply: Self.maxReply)
  }

  /// Runs `script` (by its SHA-1) on `keys` and `arguments`.
  func run(
    _ script: RedisScript, keys: [String], _ arguments: [RedisArgument], timeout: TimeInterval = 10
  ) throws -> RedisValue {
    try client.run(
      script, keys: keys, arguments, deadline: RedisDeadline(seconds: timeout),
      maxReply: Self.maxReply)
  }

  func command(_ words: String...) throws -> RedisValue {
    try command(words.map(RedisArgument.text))
  }

  /// Records the job and appends its URLs, `shardSize` to a shard, as `urls` yields them (one
  /// shard in memory at a time); then `whole` says whether the list was read to its end (it
  /// throws why not). Refused (`.invalidInput`, nothing deleted) when the job exists, unless `replace`,
  /// which deletes it first. A submission that fails after it began deletes what it added;
  /// the job opens only once its list is whole (and if no one cancelled it meanwhile).
  /// Returns how many URLs and shards were added.
  public func submit(
    urls: some Sequence<String>, shardSize: Int, options: JobOptions, replace: Bool,
    whole: () throws -> Void = {}
  ) throws -> (urls: Int, shards: Int) {
    try submit(
      rows: urls.lazy.map { ListedURL($0) }, shardSize: shardSize, options: options,
      replace: replace, whole: whole)
  }

  /// ``submit(urls:shardSize:options:replace:whole:)`` of a table's rows: what each says of its
  /// URL (its digest, caption and saved columns) is kept beside it, in the shard's `rows`.
  public func submit(
    rows: some Sequence<ListedURL>, shardSize: Int, options: JobOptions, replace: Bool,
    whole: () throws -> Void = {}
  ) throws -> (urls: Int, shards: Int) {
    guard (1...Self.maxShardSize).contains(shardSize) else {
      throw CacheError(
        .invalidInput, "--shard-size \(shardSize): expected 1 to \(Self.maxShardSize)")
    }
    if replace { _ = try delete() }
    guard case .integer(1) = try command("HSETNX", record, "version", "1") else {
      throw CacheError(.invalidInput, "job \(name) exists: choose another name, or --replace it")
    }
    do {
      // The options first: a worker may start on the first shards while the rest come.
      _ = try command(
        "HSET", record, "state", "submitting", "submitted", Self.nowMilliseconds, "options",
        options.json, "shard_size", String(shardSize))
      _ = try command("XGROUP", "CREATE", stream, Self.group, "0", "MKSTREAM")
      var (count, shards) = (0, 0)
      var batch = [ListedURL]()
      func flush() throws {
        guard !batch.isEmpty else { return }
        var words = [
          "XADD", stream, "*", "shard", String(shards), "urls",
          batch.map(\.url).joined(separator: "\n"),
        ]
        if let rows = ShardRows.field(batch) { words += ["rows", rows] }
        _ = try command(words.map(RedisArgument.text))
        shards += 1
        batch.removeAll(keepingCapacity: true)
      }
      for row in rows {
        batch.append(row)
        count += 1
        if batch.count == shardSize { try flush() }
      }
      try flush()
      try whole()
      _ = try run(Self.openScript, keys: [record], [.text(String(count)), .text(String(shards))])
      return (count, shards)
    } catch {
      _ = try? delete()
      throw error
    }
  }

  /// Opens a job whose list is whole, unless it was cancelled meanwhile.
  static let openScript = RedisScript(
    """
    redis.call('HSET', KEYS[1], 'urls', ARGV[1], 'shards', ARGV[2])
    if redis.call('HGET', KEYS[1], 'state') == 'submitting' then
      redis.call('HSET', KEYS[1], 'state', 'open')
    end
    return 1
    """)

  /// Now, in milliseconds since 1970, as text.
  static var nowMilliseconds: String { String(Int64(Date().timeIntervalSince1970 * 1000)) }
}
