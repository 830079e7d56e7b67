import FoundationEssentials

/// What `job status`, `job manifest`, `job cancel` and `job delete` ask of the queue.
extension JobQueue {
  /// Where the job stands; a shard held by a worker silent for more than three `lease`s is
  /// counted as waiting (another worker takes it over).
  public func status(lease: Duration) throws -> JobStatus {
    let fields = try hash(record)
    guard let state = fields["state"] else {
      throw CacheError(.invalidInput, "no job \(name) on this queue")
    }
    func number(_ field: String) -> Int64 { fields[field].flatMap { Checked.digits($0) } ?? 0 }
    // Times between 2000 and 2200, or none: an outside number must not reach a date encoder
    // that cannot write it.
    func date(_ field: String) -> Date? {
      guard let milliseconds = fields[field].flatMap({ Checked.digits($0) }),
        (946_684_800_000...7_258_118_400_000).contains(milliseconds)
      else { return nil }
      return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
    let options = try fields["options"].map { try JobOptions.read(Data($0.utf8), job: name) }
    guard case .integer(let entries) = try command("XLEN", stream), entries >= 0 else {
      throw CacheError(.network, "job \(name): a malformed reply to XLEN")
    }
    let idle = Int64(Checked.milliseconds(lease.seconds * 3))
    var inProgress = [String: Int64]()
    var held: Int64 = 0
    for entry in try RedisStreams.pendingEntries(
      try command("XPENDING", stream, Self.group, "-", "+", "100000"))
    {
      held += 1
      if entry.idle < idle { inProgress[entry.consumer, default: 0] += 1 }
    }
    let leased = inProgress.values.reduce(0, +)
    let done = number("done")
    let dead = number("dead")
    var counts = ShardCounts()
    if case .array(let values) = try command("HVALS", countsKey) {
      for case .string(let data) in values {
        if let shard = ShardCounts.read(data) { counts.add(shard) }
      }
    }
    let now = Date()
    let workers = try hash(workersKey).compactMapValues { text -> Date? in
      guard let seconds = Checked.digits(text) else { return nil }
      let seen = Date(timeIntervalSince1970: TimeInterval(seconds))
      let ago = now.timeIntervalSince(seen)
      // A time ahead (a clock, or a hostile value) is not a worker heard from.
      return ago >= -60 && ago <= lease.seconds * 3 ? seen : nil
    }
    let takeovers = try hash(takeoversKey).compactMapValues { Checked.digits($0) }
    // Entries never delivered: the stream's, less those done, dead or held.
    let accounted = Checked.total([done, dead, held]) ?? .max
    let pending = max(0, entries - min(accounted, entries)) + (held - leased)
    return JobStatus(
      state: state, urls: number("urls"), shards: number("shards"),
      shardSize: number("shard_size"), done: done, dead: dead, inProgress: inProgress,
      pending: pending, counts: counts, submitted: date("submitted"), started: date("started"),
      workers: workers, takeovers: takeovers, options: options ?? JobOptions())
  }

  /// How many shards the job was cut into.
  public func shardCount() throws -> Int {
    guard let text = try command("HGET", record, "shards").text else {
      throw CacheError(.invalidInput, "no job \(name) on this queue (or it is being submitted)")
    }
    guard let count = Checked.digits(text), count <= Int64(Int32.max) else {
      throw CacheError(.network, "job \(name): a malformed shard count")
    }
    return Int(count)
  }

  /// The manifest of shard `index` (JSON lines), or nil while it is not done.
  public func manifest(shard index: Int) throws -> Data? {
    guard case .string(let data) = try command("HGET", manifestKey, String(index)) else {
      return nil
    }
    return data
  }

  /// Cancels the job: workers take no more shards and give back the ones they hold.
  public func cancel() throws {
    _ = try state()
    _ = try command("HSET", record, "state", "cancelled")
  }

  /// Deletes every key of the job; false when there was none.
  @discardableResult
  public func delete() throws -> Bool {
    let keys = [
      record, stream, manifestKey, countsKey, deadKey, workersKey, entriesKey, takeoversKey,
    ]
    guard
      case .integer(let deleted) = try command(
        [RedisArgument.text("DEL")] + keys.map(RedisArgument.text))
    else {
      throw CacheError(.network, "job \(name): a malformed reply to DEL")
    }
    return deleted > 0
  }

  /// A hash's fields as text (names and values that are not UTF-8 are left out).
  private func hash(_ key: String) throws -> [String: String] {
    guard case .array(let flat) = try command("HGETALL", key), flat.count % 2 == 0 else {
      throw CacheError(.network, "job \(name): a malformed reply to HGETALL")
    }
    var fields = [String: String]()
    for index in stride(from: 0, to: flat.count, by: 2) {
      guard case .string(let field) = flat[index], case .string(let value) = flat[index + 1],
        let name = String(validating: field, as: UTF8.self),
        let text = String(validating: value, as: UTF8.self)
      else { continue }
      if fields[name] == nil { fields[name] = text }
    }
    return fields
  }
}

extension JobQueue {
  /// Whether every shard of the job is done or dead (and its submission over): nothing
  /// waits, nothing is held.
  public func isComplete() throws -> Bool {
    let fields = try command("HMGET", record, "state", "done", "dead")
    guard case .array(let values) = fields, values.count == 3 else {
      throw CacheError(.network, "job \(name): a malformed reply to HMGET")
    }
    guard let state = values[0].text else {
      throw CacheError(.invalidInput, "no job \(name) on this queue")
    }
    guard state != "submitting",
      case .integer(let entries) = try command("XLEN", stream)
    else { return false }
    let finished = Checked.sum(
      values[1].text.flatMap { Checked.digits($0) } ?? 0,
      values[2].text.flatMap { Checked.digits($0) } ?? 0)
    return finished.map { $0 >= entries } ?? true
  }
}
