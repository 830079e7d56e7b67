import FoundationEssentials

/// `job retry`: failed URLs of done shards, and dead shards, handed out again (docs/fleet.md,
/// Retrying).
extension JobQueue {
  /// Takes a done shard's failed lines out of its manifest and counts and appends them as a
  /// new shard, if its counts are still those read (another retry did not come first).
  static let retryFailuresScript = RedisScript(
    """
    if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return -1 end
    redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
    redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
    local index = redis.call('HINCRBY', KEYS[1], 'shards', 1) - 1
    if ARGV[6] == '' then
      redis.call('XADD', KEYS[4], '*', 'shard', tostring(index), 'urls', ARGV[5], 'retry', '1')
    else
      redis.call(
        'XADD', KEYS[4], '*', 'shard', tostring(index), 'urls', ARGV[5], 'rows', ARGV[6],
        'retry', '1')
    end
    return index
    """)

  /// A shard's manifest and counts, read together: the counts change whenever the manifest
  /// does, so they are the compare-and-set's token for both.
  static let readShardScript = RedisScript(
    """
    return {redis.call('HGET', KEYS[1], ARGV[1]), redis.call('HGET', KEYS[2], ARGV[1])}
    """)

  /// Hands a dead shard out again: its entry replaced by a new one of the same number.
  static let retryDeadScript = RedisScript(
    """
    if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
    local entry = redis.call('XRANGE', KEYS[3], ARGV[1], ARGV[1])
    redis.call('HINCRBY', KEYS[1], 'dead', -1)
    if #entry == 0 then return 0 end
    local fields = entry[1][2]
    local shard, urls, rows
    for i = 1, #fields, 2 do
      if fields[i] == 'shard' and not shard then shard = fields[i + 1] end
      if fields[i] == 'urls' and not urls then urls = fields[i + 1] end
      if fields[i] == 'rows' and not rows then rows = fields[i + 1] end
    end
    redis.call('XDEL', KEYS[3], ARGV[1])
    if not shard or not urls then return 0 end
    if rows then
      redis.call('XADD', KEYS[3], '*', 'shard', shard, 'urls', urls, 'rows', rows, 'retry', '1')
    else
      redis.call('XADD', KEYS[3], '*', 'shard', shard, 'urls', urls, 'retry', '1')
    end
    return 1
    """)

  /// The failure classes `job retry` takes without `--class`: those a later try may cure.
  public static let transientClasses: Set<String> = [
    "network", "rate_limited", "http_5xx", "local_io", "tls", "protocol", "busy",
  ]

  /// Every failure class (docs/json.md, `job work --json`).
  public static var failureClasses: Set<String> {
    Set(CacheError.Kind.allCases.map(\.rawValue)).subtracting(["http_status", "disallowed"])
      .union(["http_4xx", "http_5xx", "offline_miss"])
  }

  /// New shards (one per done shard that has some) of the failed URLs whose class is in
  /// `classes`, taken out of their shard's manifest and counts; with `dead`, the dead shards
  /// handed out again. Returns the URLs and shards handed out.
  public func retry(classes: Set<String>, dead: Bool) throws -> (urls: Int, shards: Int) {
    var (urls, shards) = (0, 0)
    if !classes.isEmpty {
      for index in 0..<(try shardCount()) {
        let retried = try retryFailures(of: index, classes: classes)
        if retried > 0 { (urls, shards) = (urls + retried, shards + 1) }
      }
    }
    if dead, case .array(let ids) = try command("HKEYS", deadKey) {
      for case .string(let raw) in ids {
        guard let id = StreamID(String(decoding: raw, as: UTF8.self)) else { continue }
        let reply = try run(
          Self.retryDeadScript, keys: [record, deadKey, stream], [.text(id.description)])
        if reply == .integer(1) { shards += 1 }
      }
    }
    return (urls, shards)
  }

  /// Retries shard `index`'s failures of `classes`; how many URLs.
  private func retryFailures(of index: Int, classes: Set<String>) throws -> Int {
    let read = try run(
      Self.readShardScript, keys: [manifestKey, countsKey], [.text(String(index))])
    guard case .array(let pair) = read, pair.count == 2, case .string(let blob) = pair[0],
      case .string(let countsText) = pair[1], var counts = ShardCounts.read(countsText)
    else { return 0 }
    var kept = [Substring]()
    var failed = Set<String>()
    let text = String(decoding: blob, as: UTF8.self)
    for line in text.split(separator: "\n") {
      guard let outcome = ManifestOutcome.read(line), let failure = outcome.failureClass,
        classes.contains(failure)
      else {
        kept.append(line)
        continue
      }
      failed.insert(outcome.url)
      counts.urls = max(0, counts.urls - 1)
      counts.failed[failure] = (counts.failed[failure] ?? 1) - 1
      if counts.failed[failure] ?? 0 <= 0 { counts.failed[failure] = nil }
    }
    guard !failed.isEmpty else { return 0 }
    // The manifest holds URLs with their credentials hidden: the list has them.
    let originals = try shardRows(index).filter { failed.contains(CacheKey.redacted($0.url)) }
    guard !originals.isEmpty else { return 0 }
    let reply = try run(
      Self.retryFailuresScript, keys: [record, manifestKey, countsKey, stream],
      [
        .text(String(index)), .bytes(countsText), .text(kept.map { $0 + "\n" }.joined()),
        .text(counts.json), .text(originals.map(\.url).joined(separator: "\n")),
        .text(ShardRows.field(originals) ?? ""),
      ])
    guard case .integer(let number) = reply, number >= 0 else { return 0 }
    return originals.count
  }

  /// The URLs of the entry that finished shard `index`, each with what its row said; none when
  /// its rows no longer fit its URLs (retried unchecked, a digest would be lost).
  private func shardRows(_ index: Int) throws -> [ListedURL] {
    guard let id = try command("HGET", entriesKey, String(index)).text else { return [] }
    let entries = try RedisStreams.entries(try command("XRANGE", stream, id, id), "XRANGE")
    return entries.first?.fields.flatMap(ShardRows.listed) ?? []
  }
}

/// What `job retry` reads of a manifest line: its URL and how it failed.
private struct ManifestOutcome: Decodable {
  struct Failure: Decodable {
    var kind: String
    var httpStatus: Int?
  }
  var url: String
  var status: String
  var error: Failure?

  static func read(_ line: Substring) -> ManifestOutcome? {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try? decoder.decode(ManifestOutcome.self, from: Data(line.utf8))
  }

  /// Its class, as the counts have it; nil for a success.
  var failureClass: String? {
    if status == "offline_miss" { return "offline_miss" }
    guard status == "error", let error else { return nil }
    return ShardCounts.failureClass(kind: error.kind, httpStatus: error.httpStatus)
  }
}
