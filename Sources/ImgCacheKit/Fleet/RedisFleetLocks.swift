import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// One download per key across a fleet (docs/fleet.md, Coalescing): before it downloads a
/// key, a machine takes `imgcache:lock:<object name>` with `SET NX PX`; a machine that finds
/// it taken waits for the remote object instead. A holder renews its locks every
/// ``renewal`` (one script for all it holds) until it has written the object back; one that
/// dies lets them lapse after ``lifetime``, and a waiter downloads. Attempts and releases go
/// to Redis in batches on the process's one `locks` connection (``FleetLockBatches``).
///
/// Lock rule: `state` guards the held locks, the renewing task and the batches; Redis is
/// asked, and waiting callers are woken, outside it.
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
    var batches = FleetLockBatches()
    var waiters = [FleetLockBatches.Ticket: Waiter]()
  }

  /// A caller waiting for its word: set, then signalled.
  private final class Waiter: Sendable {
    let signal = DispatchSemaphore(value: 0)
    let word = Mutex<FleetLockBatches.Word?>(nil)
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

  /// Lets go of `ARGV[3]` names (the first keys; only this machine's), then takes each of the
  /// others if no one holds it: `{1 or 0, …}`, one for each taken.
  static let batchScript = RedisScript(
    """
    local r = tonumber(ARGV[3])
    for i = 1, r do
      if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
    end
    local out = {}
    for i = r + 1, #KEYS do
      if redis.call('SET', KEYS[i], ARGV[1], 'NX', 'PX', ARGV[2]) then
        out[#out + 1] = 1
      else
        out[#out + 1] = 0
      end
    end
    return out
    """)

  /// The locks kept on the Redis of `queue`, else of the first Redis backend of `remote`.
  public init(queue: String?, remote: [RemoteSpec]) throws {
    client = try FleetRedis.client(queue: queue, remote: remote, role: "locks")
    var bytes = [UInt8](repeating: 0, count: 8)
    for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
    owner = Hex.encode(bytes) + ":\(getpid())"
  }

  /// The lock's name for `key`.
  static func lockName(_ key: String) -> String { "imgcache:lock:" + RemoteTier.objectName(key) }

  /// Takes `key`'s lock if no machine holds it.
  public func attempt(key: String) -> FleetLockAttempt {
    let name = Self.lockName(key)
    let waiter = Waiter()
    let (ticket, batch) = state.withLock { state in
      let (ticket, leads) = state.batches.attempt(name)
      if leads { return (ticket, Optional(state.batches.batch())) }
      state.waiters[ticket] = waiter
      return (ticket, nil)
    }
    var word = batch.map { send($0, own: ticket) } ?? wait(ticket, waiter)
    while word == .lead {
      word = send(state.withLock { $0.batches.batch() }, own: ticket)
    }
    guard case .answer(let held?) = word else { return .unavailable }
    guard held else { return .busy }
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
    // Sent now when no batch is on its way; else with the next one.
    let batch = state.withLock { $0.batches.release(name) ? $0.batches.batch() : nil }
    if let batch { _ = send(batch, own: nil) }
  }

  /// Waits for `ticket`'s word; past ``deadline`` an attempt still waiting is withdrawn (no
  /// answer), one already on its way or told to lead is waited for (its batch has a deadline).
  private func wait(
    _ ticket: FleetLockBatches.Ticket, _ waiter: Waiter
  ) -> FleetLockBatches.Word {
    let limit = DispatchTime.now() + .milliseconds(Checked.milliseconds(Self.deadline))
    if waiter.signal.wait(timeout: limit) == .timedOut {
      let withdrawn = state.withLock { state -> Bool in
        guard state.batches.withdraw(ticket) else { return false }
        state.waiters[ticket] = nil
        return true
      }
      if withdrawn { return .answer(held: nil) }
      waiter.signal.wait()
    }
    return waiter.word.withLock { $0 } ?? .answer(held: nil)
  }

  /// Sends `batch`, wakes the callers it answers and the next sender; returns the answer to
  /// `own` (nil: a batch of releases only). Only releases left: a task sends them.
  private func send(
    _ batch: FleetLockBatches.Batch, own: FleetLockBatches.Ticket?
  ) -> FleetLockBatches.Word {
    let milliseconds = String(Self.lifetime.components.seconds * 1_000)
    let reply = run(
      Self.batchScript, keys: batch.releases + batch.attempts.map(\.name),
      [owner, milliseconds, String(batch.releases.count)])
    var answers = [Bool?](repeating: nil, count: batch.attempts.count)
    if case .array(let values)? = reply, values.count == answers.count {
      for (index, value) in values.enumerated() {
        if case .integer(let taken) = value { answers[index] = taken == 1 }
      }
    }
    var words = [(Waiter, FleetLockBatches.Word)]()
    var mine = FleetLockBatches.Word.answer(held: nil)
    let next = state.withLock { state -> FleetLockBatches.Next in
      for (index, attempt) in batch.attempts.enumerated() {
        if attempt.ticket == own {
          mine = .answer(held: answers[index])
        } else if let waiter = state.waiters.removeValue(forKey: attempt.ticket) {
          words.append((waiter, .answer(held: answers[index])))
        }
      }
      let next = state.batches.sent()
      if case .lead(let ticket) = next, let waiter = state.waiters.removeValue(forKey: ticket) {
        words.append((waiter, .lead))
      }
      return next
    }
    for (waiter, word) in words {
      waiter.word.withLock { $0 = word }
      waiter.signal.signal()
    }
    if next == .sendReleases {
      Task(executorPreference: EngineExecutor.shared) { [self] in
        _ = send(state.withLock { $0.batches.batch() }, own: nil)
      }
    }
    return mine
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
