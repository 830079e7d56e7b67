import FoundationEssentials
import Synchronization

/// The scripts of ``RedisFleetHosts`` and the fetches that run them, off the download loop.
extension RedisFleetHosts {
  /// Reserves `ARGV[3]` starts under a rate of `ARGV[1]` µs between starts (0: none, the
  /// pause only): `{1, left}` while paused, else `{0, wait, wait, …}` (µs from now).
  static let reserveScript = RedisScript(
    """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0') or 0
    if paused > now then return {1, paused - now} end
    local interval = tonumber(ARGV[1]) or 0
    if interval <= 0 then return {0} end
    local count = tonumber(ARGV[3]) or 1
    if count < 1 then count = 1 end
    if count > 64 then count = 64 end
    local next = tonumber(redis.call('HGET', KEYS[1], 'next') or '0') or 0
    local at = now
    if next > at then at = next end
    local reply = {0}
    for i = 0, count - 1 do reply[#reply + 1] = at + i * interval - now end
    redis.call('HSET', KEYS[1], 'next', at + count * interval)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return reply
    """)

  /// Pauses the host for `ARGV[1]` µs (never shortening a longer pause) and publishes it on
  /// `ARGV[3]` as `HOST\nMICROSECONDS`, for every machine's subscription.
  static let pauseScript = RedisScript(
    """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local wait = tonumber(ARGV[1]) or 0
    local untilTime = now + wait
    local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0') or 0
    if untilTime > paused then redis.call('HSET', KEYS[1], 'paused', untilTime) end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    local host = string.sub(KEYS[1], string.len('imgcache:host:') + 1)
    redis.call('PUBLISH', ARGV[3], host .. '\\n' .. wait)
    return 1
    """)

  /// The longest wait a reply may hold: a day, in microseconds.
  static let longestWait: Int64 = 86_400_000_000

  /// Runs `fetch` on the engine's executor; its reply goes to the table.
  func perform(_ fetch: FleetTable.Fetch) {
    Task(executorPreference: EngineExecutor.shared) { [self] in
      let (host, interval, count): (String, Int64, Int)
      switch fetch {
      case .pause(let name): (host, interval, count) = (name, 0, 0)
      case .starts(let name, let every, let many): (host, interval, count) = (name, every, many)
      }
      let micro = interval > 0 ? max(1, interval / 1_000) : 0
      let reply = call(
        Self.reserveScript, host, [String(micro), String(Self.keep), String(count)])
      let now = ContinuousClock.now
      guard let (waits, paused) = reply.flatMap(Self.reservation) else {
        state.table.withLock { $0.failed(host) }
        return
      }
      state.table.withLock { $0.received(host, waits: waits, paused: paused, now: now) }
    }
  }

  /// A reserve script's reply: starts' waits or a pause, in nanoseconds; nil when malformed
  /// (a wait negative or past a day is outside what the script writes).
  static func reservation(_ reply: RedisValue) -> (waits: [Int64], paused: Int64?)? {
    guard case .array(let parts) = reply, case .integer(let kind)? = parts.first else {
      return nil
    }
    var values = [Int64]()
    for part in parts.dropFirst() {
      guard case .integer(let micro) = part, (0...longestWait).contains(micro) else { return nil }
      values.append(micro * 1_000)
    }
    switch kind {
    case 1: return values.count == 1 ? ([], values[0]) : nil
    case 0: return (values, nil)
    default: return nil
    }
  }

  /// Runs `script` for `host` within ``deadline``; nil (and quiet for ``backoff``) on failure.
  func call(_ script: RedisScript, _ host: String, _ values: [String]) -> RedisValue? {
    let now = ContinuousClock.now
    if let quiet = state.health.withLock({ $0.quietUntil }), now < quiet { return nil }
    let deadline = RedisDeadline(seconds: Self.deadline)
    do {
      return try client.run(
        script, keys: ["imgcache:host:" + host], values.map(RedisArgument.text),
        deadline: deadline)
    } catch {
      noteFailure((error as? CacheError)?.message ?? "\(label): \(error)")
      return nil
    }
  }

  /// Counts a failure and leaves the fleet alone for ``backoff``.
  func noteFailure(_ message: String) {
    let now = ContinuousClock.now
    state.health.withLock { $0 = (now + Self.backoff, $0.failures + 1, message) }
  }
}
