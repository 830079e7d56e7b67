import Foundation

/// A job's work queue on Redis Streams (issue 38's groundwork; not yet a command): its URL list
/// cut into shards, one stream entry each, taken by workers through a consumer group, held by
/// a lease they renew, taken over once a lease lapses, acknowledged when done.
///
/// Keys, for a job `NAME` (``JobQueue/isValidName(_:)``): `imgcache:job:NAME` (a hash: the
/// record), `imgcache:job:NAME:shards` (the stream), consumer group `workers`.
final class JobQueue: Sendable {
  /// One shard as a worker holds it.
  struct Shard: Equatable, Sendable {
    /// Its stream entry.
    let id: StreamID
    /// Its number, from 0.
    let index: Int
    /// Its URLs, in list order.
    let urls: [String]
  }

  let name: String
  private let server: RedisServer
  private let record: String
  private let stream: String
  static let group = "workers"
  /// The most URLs a shard holds, and the most bytes its entry may have.
  static let maxShardSize = 1_000_000
  static let maxShardBytes: Int64 = 256 << 20

  /// The queue of job `name` on `server`; `.invalidInput` for a name that is not one.
  init(name: String, server: RedisServer) throws {
    guard Self.isValidName(name) else {
      throw CacheError(
        .invalidInput,
        "job name '\(name.containsControlCharacters ? "?" : name)': expected 1 to 64 letters, "
          + "digits, '.', '_' or '-'")
    }
    (self.name, self.server) = (name, server)
    record = "imgcache:job:\(name)"
    stream = "imgcache:job:\(name):shards"
  }

  /// Whether `name` can name a job (it becomes part of Redis keys).
  static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.utf8.count)
      && name.utf8.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
          || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
      }
  }

  private func command(_ words: [RedisArgument], timeout: TimeInterval = 10) throws -> RedisValue {
    let deadline = RedisDeadline(seconds: timeout)
    return try server.withConnection(deadline) {
      try server.check($0.command(words, deadline: deadline, maxReply: Self.maxShardBytes))
    }
  }

  /// Records the job and appends its URLs, `shardSize` to a shard, as `urls` yields them (one
  /// shard in memory at a time). Refused (`.invalidInput`) when the job exists, unless
  /// `replace`, which deletes it first. Returns how many URLs and shards were added.
  func submit(
    urls: some Sequence<String>, shardSize: Int, options: String, replace: Bool
  ) throws -> (urls: Int, shards: Int) {
    guard (1...Self.maxShardSize).contains(shardSize) else {
      throw CacheError(
        .invalidInput, "--shard-size \(shardSize): expected 1 to \(Self.maxShardSize)")
    }
    if replace { _ = try command([.text("DEL"), .text(record), .text(stream)]) }
    guard
      case .integer(1) = try command([.text("HSETNX"), .text(record), .text("version"), .text("1")])
    else {
      throw CacheError(
        .invalidInput, "job \(name) exists: choose another name, or --replace it")
    }
    _ = try command([
      .text("XGROUP"), .text("CREATE"), .text(stream), .text(Self.group), .text("0"),
      .text("MKSTREAM"),
    ])
    var (count, shards) = (0, 0)
    var batch = [String]()
    func flush() throws {
      guard !batch.isEmpty else { return }
      _ = try command([
        .text("XADD"), .text(stream), .text("*"), .text("shard"), .text(String(shards)),
        .text("urls"), .text(batch.joined(separator: "\n")),
      ])
      shards += 1
      batch.removeAll(keepingCapacity: true)
    }
    for url in urls {
      batch.append(url)
      count += 1
      if batch.count == shardSize { try flush() }
    }
    try flush()
    _ = try command([
      .text("HSET"), .text(record), .text("urls"), .text(String(count)), .text("shards"),
      .text(String(shards)), .text("shard_size"), .text(String(shardSize)), .text("options"),
      .text(options),
    ])
    return (count, shards)
  }

  /// A shard for `consumer`: one whose worker let its lease lapse (idle past `lease` × 3)
  /// first, else the next never taken, waiting up to `block` for one; nil when none came.
  func take(consumer: String, lease: Duration, block: Duration) throws -> Shard? {
    let idle = String(Checked.milliseconds(lease.seconds * 3))
    let claimed = try RedisStreams.autoClaim(
      try command([
        .text("XAUTOCLAIM"), .text(stream), .text(Self.group), .text(consumer), .text(idle),
        .text("0-0"), .text("COUNT"), .text("1"),
      ]))
    if let entry = claimed.entries.first(where: { $0.fields != nil }) {
      return try shard(entry)
    }
    let waited = Checked.milliseconds(block.seconds)
    let read = try RedisStreams.readGroup(
      try command(
        [
          .text("XREADGROUP"), .text("GROUP"), .text(Self.group), .text(consumer), .text("COUNT"),
          .text("1"), .text("BLOCK"), .text(String(waited)), .text("STREAMS"), .text(stream),
          .text(">"),
        ], timeout: block.seconds + 10), stream: stream)
    return try read.first.map(shard)
  }

  /// Renews `consumer`'s lease on `shard` (its idle time starts again).
  func renew(_ shard: Shard, consumer: String) throws {
    _ = try command([
      .text("XCLAIM"), .text(stream), .text(Self.group), .text(consumer), .text("0"),
      .text(shard.id.description), .text("JUSTID"),
    ])
  }

  /// Marks `shard` done.
  func acknowledge(_ shard: Shard) throws {
    _ = try command([.text("XACK"), .text(stream), .text(Self.group), .text(shard.id.description)])
  }

  /// Shards taken and not acknowledged, by worker.
  func pending() throws -> PendingSummary {
    try RedisStreams.pendingSummary(
      try command([.text("XPENDING"), .text(stream), .text(Self.group)]))
  }

  /// A shard from its entry; a malformed one (no number, no URLs) is a broken queue.
  private func shard(_ entry: StreamEntry) throws -> Shard {
    guard let fields = entry.fields, let number = fields["shard"],
      let index = Checked.digits(String(decoding: number, as: UTF8.self)),
      let text = fields["urls"].flatMap({ String(validating: $0, as: UTF8.self) })
    else { throw CacheError(.network, "job \(name): a malformed shard \(entry.id)") }
    return Shard(
      id: entry.id, index: Int(index), urls: text.split(separator: "\n").map(String.init))
  }
}

extension Duration {
  /// The duration in seconds, as a `TimeInterval`.
  fileprivate var seconds: TimeInterval {
    TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
  }
}
