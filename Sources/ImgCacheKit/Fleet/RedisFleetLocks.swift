import Foundation
import Synchronization

/// One download per key across a fleet (docs/fleet.md, Coalescing): before it downloads a
/// key, a machine takes `imgcache:lock:<object name>` with `SET NX PX`; a machine that finds
/// it taken waits for the remote object instead. A holder renews its locks every
/// ``renewal`` (one script for all it holds) until it has written the object back; one that
/// dies lets them lapse after ``lifetime``, and a waiter downloads.
///
/// Lock rule: `state` guards the held locks and the renewing task; Redis is asked outside it.
public final class RedisFleetLocks: FleetLocks {
  private let client: RedisClient
  private let owner: String
  private let state = Mutex<State>(State())
  /// How long a lock lives unrenewed, and how often its holder renews it.
  static let lifetime = Duration.seconds(6)
  static let renewal = Duration.seconds(2)
  /// The deadline of one call: a slow Redis costs a download its coalescing, never more.
  static let deadline: TimeInterval = 0.5

  private struct State {
    var held = [String: Int]()
    var renewing = false
  }

  private static let renewScript = RedisScript(
    """
    local n = 0
    for i, key in ipairs(KEYS) do
      if redis.call('GET', key) == ARGV[1] then
        redis.call('PEXPIRE', key, ARGV[2])
        n = n + 1
      end
    end
    return n
    """)

  private static let releaseScript = RedisScript(
    """
    if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
    """)

  /// The locks kept on the Redis of `queue`, else of the first Redis backend of `remote`.
  public init(queue: String?, remote: [RemoteSpec]) throws {
    client = try FleetRedis.client(queue: queue, remote: remote, role: "locks")
    var bytes = [UInt8](repeating: 0, count: 8)
    for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
    owner = bytes.map { String(format: "%02x", $0) }.joined() + ":\(getpid())"
  }

  /// The lock's name for `key`.
  static func lockName(_ key: String) -> String { "imgcache:lock:" + RemoteTier.objectName(key) }

  /// Takes `key`'s lock if no machine holds it.
  public func attempt(key: String) -> FleetLockAttempt {
    let name = Self.lockName(key)
    let milliseconds = String(Self.lifetime.components.seconds * 1_000)
    guard
      let reply = call([
        .text("SET"), .text(name), .text(owner), .text("NX"), .text("PX"), .text(milliseconds),
      ])
    else { return .unavailable }
    guard case .status("OK") = reply else { return .busy }
    let start = state.withLock { state -> Bool in
      state.held[name, default: 0] += 1
      defer { state.renewing = true }
      return !state.renewing
    }
    if start {
      Task(executorPreference: EngineExecutor.shared) { [self] in await renewWhileHeld() }
    }
    return .held(name)
  }

  /// Whether some machine holds `key`'s lock; nil when Redis does not answer.
  public func isHeld(key: String) -> Bool? {
    guard case .integer(let count) = call([.text("EXISTS"), .text(Self.lockName(key))]) else {
      return nil
    }
    return count > 0
  }

  /// Lets go of a lock taken by ``attempt(key:)`` (deleted only if still this machine's).
  public func release(_ name: String) {
    let last = state.withLock { state -> Bool in
      guard let count = state.held[name] else { return false }
      state.held[name] = count > 1 ? count - 1 : nil
      return count == 1
    }
    guard last else { return }
    _ = run(Self.releaseScript, keys: [name], [owner])
  }

  /// Renews every held lock each ``renewal``, until none is held.
  private func renewWhileHeld() async {
    while true {
      try? await Task.sleep(for: Self.renewal)
      let names = state.withLock { state -> [String] in
        if state.held.isEmpty { state.renewing = false }
        return Array(state.held.keys)
      }
      guard !names.isEmpty else { return }
      let milliseconds = String(Self.lifetime.components.seconds * 1_000)
      _ = run(Self.renewScript, keys: names, [owner, milliseconds])
    }
  }

  private func call(_ words: [RedisArgument]) -> RedisValue? {
    try? client.call(words, deadline: RedisDeadline(seconds: Self.deadline))
  }

  private func run(_ script: RedisScript, keys: [String], _ arguments: [String]) -> RedisValue? {
    try? client.run(
      script, keys: keys, arguments.map(RedisArgument.text),
      deadline: RedisDeadline(seconds: Self.deadline))
  }
}
