import FoundationEssentials
import Synchronization

/// The subscription through which a machine hears the fleet's pauses at once (docs/fleet.md,
/// Politeness): one connection of its own, `SUBSCRIBE` to ``RedisFleetHosts/channel``, each
/// message (`HOST\nMICROSECONDS`, outside input: a printable host of at most 300 bytes and a
/// wait of at most a day, else dropped) applied to the machine's ``FleetTable`` as it comes.
/// It runs as one task on the engine's executor that never holds a thread while it waits: it
/// reads what has come, then sleeps ``pollInterval`` (a blocking wait for the next message
/// held one of the executor's few threads for good, stalling the engine's other work for
/// seconds until libdispatch added one). A lost connection is made again after a second, and
/// counted as a failure.
final class RedisPauseListener: Sendable {
  private let client: RedisClient
  private let state: FleetState
  private let label: String
  private let stopping = Atomic<Bool>(false)
  private let subscribed = Atomic<Bool>(false)
  private let started = Atomic<Bool>(false)

  /// How often a quiet subscription looks for a stop.
  static let pollInterval: Int32 = 50
  /// How long a lost subscription waits before it connects again.
  static let reconnectDelay = Duration.seconds(1)

  init(client: RedisClient, state: FleetState, label: String) {
    (self.client, self.state, self.label) = (client, state, label)
  }

  /// Whether the subscription is in place.
  var isSubscribed: Bool { subscribed.load(ordering: .acquiring) }

  /// Starts listening (once).
  func start() {
    guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
    Task(executorPreference: EngineExecutor.shared) { [self] in await run() }
  }

  /// Stops listening, within ``pollInterval``.
  func stop() { stopping.store(true, ordering: .releasing) }

  private var isStopping: Bool { stopping.load(ordering: .acquiring) }

  private func run() async {
    while !isStopping {
      do {
        try await listen()
      } catch {
        subscribed.store(false, ordering: .releasing)
        let message = (error as? CacheError)?.message ?? "\(label): \(error)"
        state.health.withLock { $0 = ($0.quietUntil, $0.failures + 1, message) }
      }
      let resume = ContinuousClock.now + Self.reconnectDelay
      while !isStopping && ContinuousClock.now < resume {
        try? await Task.sleep(for: .milliseconds(Int(Self.pollInterval)))
      }
    }
  }

  /// Subscribes and applies messages until a stop (returns) or a failure (throws).
  private func listen() async throws {
    let connection = try client.connect(RedisDeadline(seconds: RedisFleetHosts.deadline * 2))
    try connection.send(
      [.text("SUBSCRIBE"), .text(RedisFleetHosts.channel)],
      deadline: RedisDeadline(seconds: RedisFleetHosts.deadline * 2))
    _ = try client.check(
      connection.reply(
        deadline: RedisDeadline(seconds: RedisFleetHosts.deadline * 2), maxBulk: 4_096))
    subscribed.store(true, ordering: .releasing)
    defer { subscribed.store(false, ordering: .releasing) }
    while !isStopping {
      guard try connection.hasInput(waiting: 0) else {
        try? await Task.sleep(for: .milliseconds(Int(Self.pollInterval)))
        continue
      }
      let message = try connection.reply(deadline: RedisDeadline(seconds: 1), maxBulk: 4_096)
      guard let (host, wait) = Self.pause(in: message) else { continue }
      let now = ContinuousClock.now
      state.table.withLock { $0.heard(host, wait: wait, now: now) }
    }
  }

  /// The pause a pushed message holds: `["message", channel, "HOST\nMICROSECONDS"]`; nil for
  /// anything else, or a host or wait out of bounds. The wait in nanoseconds.
  static func pause(in message: RedisValue) -> (host: String, wait: Int64)? {
    guard case .array(let parts) = message, parts.count == 3, parts[0].text == "message",
      case .string(let payload) = parts[2], payload.count <= 320
    else { return nil }
    let pieces = payload.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard pieces.count == 2, (1...300).contains(pieces[0].count),
      pieces[0].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
      let micro = Checked.digits(String(decoding: pieces[1], as: UTF8.self)),
      micro <= RedisFleetHosts.longestWait
    else { return nil }
    return (String(decoding: pieces[0], as: UTF8.self), micro * 1_000)
  }
}
