import FoundationEssentials
import Synchronization

/// A fleet's politeness on Redis (docs/fleet.md, Politeness): per host, the hash
/// `imgcache:host:HOST` holds `paused` (until when, in Redis' microseconds) and `next` (the
/// next start its rate allows). Starts are reserved a batch at a time by one script: paused,
/// or the later of now and `next` and the intervals after it, with `next` moved past them —
/// the rate's schedule, shared by every machine (GCRA with no burst). Redis' clock is the
/// fleet's: machines' clocks never meet; a reply's waits are relative, judged on arrival.
///
/// The download loop asks ``FleetTable`` (this machine's view) and never waits on Redis:
/// what the table lacks is fetched by a task on the engine's executor, and a pause one
/// machine hears is published on ``channel`` and applied by every subscriber as it arrives
/// (``RedisPauseListener``). After a failure the fleet is not asked for ``backoff`` (each
/// machine's own politeness holds meanwhile), and the failure is kept for the command to
/// report. One connection per role (docs/fleet.md, Connections): `hosts` for the scripts,
/// `pauses` for the subscription.
public final class RedisFleetHosts: FleetPoliteness {
  let client: RedisClient
  let label: String
  /// This machine's view of the fleet and its health, shared with the subscription.
  let state = FleetState()
  private let listener: RedisPauseListener

  /// The deadline of one call (off the download loop: a slow answer holds up no transfer).
  static let deadline: TimeInterval = 1
  /// How long the fleet is left alone after a failure.
  static let backoff = Duration.seconds(5)
  /// How long a host's state outlives its last use.
  static let keep = 86_400_000
  /// The channel pauses are published on.
  static let channel = "imgcache:fleet:pauses"

  /// The fleet politeness kept on the Redis of `queue` (a `redis://` or `redis+unix:` URL),
  /// else of the first Redis backend of `remote`; its subscription starts at once.
  public init(queue: String?, remote: [RemoteSpec]) throws {
    client = try FleetRedis.client(queue: queue, remote: remote, role: "hosts")
    label = client.endpoint.display
    listener = RedisPauseListener(
      client: RedisClient(client.endpoint, role: "pauses"), state: state, label: label)
    listener.start()
  }

  deinit { listener.stop() }

  /// Ends the subscription (within ``RedisPauseListener/pollInterval``).
  public func close() { listener.stop() }

  /// Whether the subscription is in place (pauses published from now on are heard).
  public var isListening: Bool { listener.isSubscribed }

  /// Failures since the start, and the last one's message (for the command to report).
  public var failures: (count: Int, last: String?) {
    state.health.withLock { ($0.failures, $0.last) }
  }

  public func reserve(_ host: String, interval: Int64?) -> FleetAnswer? {
    let now = ContinuousClock.now
    if let quiet = state.health.withLock({ $0.quietUntil }), now < quiet { return nil }
    let (answer, fetch) = state.table.withLock {
      $0.prune(now: now)
      return $0.admit(host, interval: interval, now: now)
    }
    if let fetch { perform(fetch) }
    return answer
  }

  public func pause(_ host: String, for nanoseconds: Int64) {
    let now = ContinuousClock.now
    state.table.withLock { $0.heard(host, wait: nanoseconds, now: now) }
    let micro = String(max(0, nanoseconds / 1_000))
    Task(executorPreference: EngineExecutor.shared) { [self] in
      _ = call(Self.pauseScript, host, [micro, String(Self.keep), Self.channel])
    }
  }
}

/// What a machine's fleet politeness and its subscription share: each behind its own lock,
/// never held across a call.
final class FleetState: Sendable {
  /// Until when the fleet is not asked (after a failure), and the failures seen.
  typealias Health = (quietUntil: ContinuousClock.Instant?, failures: Int, last: String?)
  /// This machine's view of the fleet.
  let table = Mutex(FleetTable())
  let health = Mutex<Health>((nil, 0, nil))
}
