import Foundation
import Synchronization

/// A fleet's politeness on Redis (docs/fleet.md, Politeness): per host, the hash
/// `imgcache:host:HOST` holds `paused` (until when, in Redis' microseconds) and `next` (the
/// next start its rate allows). A start is reserved by one script: paused, or the later of
/// now and `next`, with `next` moved one interval on — the rate's schedule, shared by every
/// machine (GCRA with no burst). Redis' clock is the fleet's: machines' clocks never meet.
///
/// Asked from the download loop's thread, so each call has a short deadline; after a failure
/// the fleet is not asked for ``backoff`` (each machine's own politeness holds meanwhile), and
/// the failure is kept for the command to report.
public final class RedisFleetHosts: FleetPoliteness {
  private let server: RedisServer
  private let label: String
  /// Until when the fleet is not asked (after a failure), and the failures seen.
  private let state = Mutex<(quietUntil: ContinuousClock.Instant?, failures: Int, last: String?)>(
    (nil, 0, nil))
  /// The deadline of one call.
  static let deadline: TimeInterval = 0.25
  /// An answer slower than this counts as a failure.
  static let slow = Duration.milliseconds(100)
  /// How long the fleet is left alone after a failure.
  static let backoff = Duration.seconds(5)
  /// How long a host's state outlives its last use.
  static let keep = 86_400_000

  private static let reserveScript = """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0') or 0
    if paused > now then return {1, paused - now} end
    local interval = tonumber(ARGV[1]) or 0
    if interval <= 0 then return {0, 0} end
    local next = tonumber(redis.call('HGET', KEYS[1], 'next') or '0') or 0
    local at = now
    if next > at then at = next end
    redis.call('HSET', KEYS[1], 'next', at + interval)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {0, at - now}
    """

  private static let pauseScript = """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local untilTime = now + (tonumber(ARGV[1]) or 0)
    local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0') or 0
    if untilTime > paused then redis.call('HSET', KEYS[1], 'paused', untilTime) end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
    """

  /// The fleet politeness kept on the Redis of `queue` (a `redis://` or `redis+unix:` URL),
  /// else of the first Redis backend of `remote`.
  public init(queue: String?, remote: [RemoteSpec]) throws {
    let spec = try JobQueue.spec(queue: queue, remote: remote)
    server = try RedisServer(url: spec.url, spec: spec)
    label = spec.label
  }

  /// Failures since the start, and the last one's message (for the command to report).
  public var failures: (count: Int, last: String?) {
    state.withLock { ($0.failures, $0.last) }
  }

  public func reserve(_ host: String, interval: Int64?) -> FleetAnswer? {
    let micro = interval.map { max(1, $0 / 1_000) } ?? 0
    guard let reply = call(Self.reserveScript, host, String(micro)),
      case .array(let parts) = reply, parts.count == 2, case .integer(let kind) = parts[0],
      case .integer(let wait) = parts[1], wait >= 0, wait <= Int64(RetryAfter.longest * 1e6)
    else { return nil }
    let nanoseconds = wait.multipliedReportingOverflow(by: 1_000)
    guard !nanoseconds.overflow else { return nil }
    return kind == 1 ? .paused(for: nanoseconds.partialValue) : .start(in: nanoseconds.partialValue)
  }

  public func pause(_ host: String, for nanoseconds: Int64) {
    _ = call(Self.pauseScript, host, String(max(0, nanoseconds / 1_000)))
  }

  /// Runs `script` for `host` within ``deadline``; nil (and quiet for ``backoff``) on failure.
  private func call(_ script: String, _ host: String, _ value: String) -> RedisValue? {
    let now = ContinuousClock.now
    if let quiet = state.withLock({ $0.quietUntil }), now < quiet { return nil }
    let deadline = RedisDeadline(seconds: Self.deadline)
    do {
      return try server.withConnection(deadline) {
        // The command's own time, not a new connection's set-up.
        let asked = ContinuousClock.now
        let reply = try server.check(
          $0.command(
            [
              .text("EVAL"), .text(script), .text("1"), .text("imgcache:host:" + host),
              .text(value), .text(String(Self.keep)),
            ], deadline: deadline))
        // A slow answer stalls every transfer of the loop that asked: left alone a while too.
        if ContinuousClock.now - asked > Self.slow {
          state.withLock { $0 = (now + Self.backoff, $0.failures + 1, "\(label): answered slowly") }
        }
        return reply
      }
    } catch {
      let message = (error as? CacheError)?.message ?? "\(label): \(error)"
      state.withLock { $0 = (now + Self.backoff, $0.failures + 1, message) }
      return nil
    }
  }
}
