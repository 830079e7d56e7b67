import FoundationEssentials

/// Taking, holding, giving back and finishing shards (docs/fleet.md, Leases).
extension JobQueue {
  /// Renews a lease if its holder still holds it, notes that the worker was heard from, and
  /// answers whether it still holds it and the job's state: one round trip.
  static let renewScript = RedisScript(
    """
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
    local held = 0
    if #p == 1 and p[1][2] == ARGV[3] then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'JUSTID')
      held = 1
    end
    redis.call('HSET', KEYS[3], ARGV[3], redis.call('TIME')[1])
    return {held, redis.call('HGET', KEYS[2], 'state') or ''}
    """)

  /// Acknowledges a shard and, if this acknowledgement was the first, keeps its manifest and
  /// counts: a shard finished twice (a lapsed lease taken over) is counted once.
  static let finishScript = RedisScript(
    """
    if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
    if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
      redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
      redis.call('HSET', KEYS[4], ARGV[3], ARGV[5])
      redis.call('HSET', KEYS[5], ARGV[3], ARGV[2])
      redis.call('HINCRBY', KEYS[2], 'done', 1)
      return 1
    end
    return 0
    """)

  /// Gives a shard back if its giver still holds it: its delivery time set to 1970 (the next
  /// worker takes it at once), its count back by one, and its holder a name no worker has (a
  /// renewal of the giver's still on its way cannot take it back).
  /// Counts a shard taken over from worker `ARGV[1]`, while the job exists.
  static let takeoverScript = RedisScript(
    """
    if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
    return redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
    """)

  /// Notes a first shard's start and its worker heard from, both by Redis's clock.
  static let startedScript = RedisScript(
    """
    local t = redis.call('TIME')
    redis.call('HSETNX', KEYS[1], 'started', t[1] * 1000 + math.floor(t[2] / 1000))
    redis.call('HSET', KEYS[2], ARGV[1], t[1])
    return 1
    """)

  /// The holder of a shard given back: no worker's name.
  static let givenBackHolder = "imgcache:given-back"

  static let giveBackScript = RedisScript(
    """
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
    if #p ~= 1 or p[1][2] ~= ARGV[3] then return 0 end
    redis.call('XCLAIM', KEYS[1], ARGV[1], '\(givenBackHolder)', 0, ARGV[2], 'TIME', 1, 'RETRYCOUNT', ARGV[4], 'JUSTID')
    return 1
    """)

  /// Moves a shard to the dead list — if it is still lapsed and delivered often enough (its
  /// holder may have renewed since it was looked at): acknowledged, remembered. ARGV[4] 0:
  /// at once (a malformed entry).
  static let buryScript = RedisScript(
    """
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[4], ARGV[2], ARGV[2], 1)
    if #p ~= 1 or tonumber(p[1][4]) < tonumber(ARGV[5]) then return 0 end
    if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
      redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
      redis.call('HINCRBY', KEYS[2], 'dead', 1)
      return 1
    end
    return 0
    """)

  private func script(
    _ script: RedisScript, keys: [String], _ arguments: [String], timeout: TimeInterval = 10
  ) throws -> RedisValue {
    try run(script, keys: keys, arguments.map(RedisArgument.text), timeout: timeout)
  }

  /// The job's state (`submitting`, `open`, `cancelled`); `.invalidInput` when there is no
  /// such job.
  public func state() throws -> String {
    guard let state = try command("HGET", record, "state").text else {
      throw CacheError(.invalidInput, "no job \(name) on this queue")
    }
    return state
  }

  /// The options the job was submitted with.
  public func options() throws -> JobOptions {
    guard case .string(let data) = try command("HGET", record, "options") else {
      throw CacheError(.invalidInput, "no job \(name) on this queue (or it is being submitted)")
    }
    return try JobOptions.read(data, job: name)
  }

  /// A shard for `consumer`: first one whose worker let its lease lapse (idle past three
  /// leases: delivered `maxDeliveries` times already, it goes to the dead list instead), else
  /// the next never taken, waiting up to `block` for one. Returns also how many shards it
  /// buried.
  public func take(
    consumer: String, lease: Duration, maxDeliveries: Int, block: Duration
  ) throws -> (taken: Taken, buried: Int) {
    guard try state() != "cancelled" else { return (.cancelled, 0) }
    let idle = String(Checked.milliseconds(lease.seconds * 3))
    var buried = 0
    let lapsed = try RedisStreams.pendingEntries(
      try command("XPENDING", stream, Self.group, "IDLE", idle, "-", "+", "16"))
    for entry in lapsed {
      if entry.deliveries >= Int64(maxDeliveries) {
        let buriedNow = try bury(
          entry.id, lastHolder: entry.consumer, idle: idle, deliveries: maxDeliveries)
        buried += buriedNow ? 1 : 0
        continue
      }
      let claimed = try RedisStreams.entries(
        try command("XCLAIM", stream, Self.group, consumer, idle, entry.id.description),
        "XCLAIM")
      guard let found = claimed.first else { continue }  // another worker was first
      guard found.fields != nil else {
        // Deleted while pending: nothing to do.
        _ = try command("XACK", stream, Self.group, found.id.description)
        continue
      }
      if entry.consumer != Self.givenBackHolder {
        _ = try script(Self.takeoverScript, keys: [record, takeoversKey], [entry.consumer])
      }
      let count = entry.deliveries >= Int64(Int.max - 1) ? Int.max : Int(entry.deliveries) + 1
      guard let taken = shard(found, deliveries: count) else {
        buried += try bury(found.id, lastHolder: consumer, idle: "0", deliveries: 0) ? 1 : 0
        continue
      }
      return (.shard(taken), buried)
    }
    let waited = Checked.milliseconds(block.seconds)
    let read = try RedisStreams.readGroup(
      try command(
        [
          .text("XREADGROUP"), .text("GROUP"), .text(Self.group), .text(consumer), .text("COUNT"),
          .text("1"), .text("BLOCK"), .text(String(waited)), .text("STREAMS"), .text(stream),
          .text(">"),
        ], timeout: block.seconds + 10), stream: stream)
    guard let entry = read.first else { return (.none, buried) }
    guard let taken = shard(entry, deliveries: 1) else {
      // Malformed (or deleted): no worker could do it; buried at once, not after three.
      buried += try bury(entry.id, lastHolder: consumer, idle: "0", deliveries: 0) ? 1 : 0
      return (.none, buried)
    }
    _ = try script(Self.startedScript, keys: [record, workersKey], [consumer])
    return (.shard(taken), buried)
  }

  /// Renews `consumer`'s lease on `shard` (its idle time starts again) unless another worker
  /// took it over; returns whether `consumer` still holds it and the job's state.
  public func renew(_ shard: Shard, consumer: String) throws -> (held: Bool, state: String) {
    let reply = try script(
      Self.renewScript, keys: [stream, record, workersKey],
      [Self.group, shard.id.description, consumer])
    guard case .array(let parts) = reply, parts.count == 2, case .integer(let held) = parts[0]
    else { throw CacheError(.network, "job \(name): a malformed reply to a lease renewal") }
    return (held == 1, parts[1].text ?? "")
  }

  /// Gives `shard` back at once, as if never taken this time: another worker takes it next,
  /// and this delivery does not count toward `max_deliveries`.
  /// Nothing is done when another worker holds it now (this one's lease lapsed).
  public func giveBack(_ shard: Shard, consumer: String, timeout: TimeInterval = 10) throws {
    _ = try script(
      Self.giveBackScript, keys: [stream],
      [Self.group, shard.id.description, consumer, String(max(shard.deliveries - 1, 0))],
      timeout: timeout)
  }

  /// Marks `shard` done with its `manifest` (JSON lines) and `counts`; false when another
  /// worker finished it first (then nothing of this one is kept).
  public func finish(_ shard: Shard, manifest: String, counts: ShardCounts) throws -> Bool {
    let reply = try script(
      Self.finishScript, keys: [stream, record, manifestKey, countsKey, entriesKey],
      [Self.group, shard.id.description, String(shard.index), manifest, counts.json])
    if reply == .integer(-1) {
      throw CacheError(
        .invalidInput,
        "job \(name) was deleted while shard \(shard.index) ran: its results are not kept")
    }
    return reply == .integer(1)
  }

  /// Moves entry `id` to the dead list if it is still idle for `idle` milliseconds and was
  /// delivered `deliveries` times; false when not (renewed, or acknowledged meanwhile).
  private func bury(
    _ id: StreamID, lastHolder: String, idle: String, deliveries: Int
  ) throws -> Bool {
    try script(
      Self.buryScript, keys: [stream, record, deadKey],
      [Self.group, id.description, lastHolder, idle, String(deliveries)]) == .integer(1)
  }

  /// Shards taken and not acknowledged, by worker.
  func pending() throws -> PendingSummary {
    try RedisStreams.pendingSummary(try command("XPENDING", stream, Self.group))
  }

  /// A shard from its entry; nil for a malformed one (no number, no URLs, rows that do not
  /// fit its URLs) or one deleted.
  private func shard(_ entry: StreamEntry, deliveries: Int) -> Shard? {
    guard let fields = entry.fields, let number = fields["shard"],
      let index = Checked.digits(String(decoding: number, as: UTF8.self)), index < Int64(Int32.max),
      let listed = ShardRows.listed(fields)
    else { return nil }
    return Shard(
      id: entry.id, index: Int(index), urls: listed.map(\.url),
      notes: fields["rows"] == nil ? nil : listed.map(\.notes), deliveries: deliveries,
      retry: fields["retry"] != nil)
  }
}
