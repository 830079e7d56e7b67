import Dispatch
import Synchronization

/// What a prefetch's producer waits for, taken in batches: the responses of the transfers it
/// submitted (``DownloadSink``: the loop thread hands over what finished in one turn), the
/// fetches of its store task, and the results of the fetches it left to tasks of their own (a lock
/// or flight to wait for, a variant to derive, a write-back). What arrived while the producer
/// was busy is taken at once — one wake-up and one batch of events, not one of each per
/// download.
///
/// While the producer blocks reading its input, arrivals also set ``wake`` (polled beside the
/// input), so a download is stored at once however long the next line takes.
///
/// Lock rule: `state` guards the lists, the waiter and the flags only; the waiter is resumed
/// and the signal set after the lock is released.
final class FinishedDownloads: DownloadSink {
  /// What arrived since the last take.
  struct Arrivals {
    /// Transfers ended, by ticket.
    var responses = [(ticket: UInt64, result: Result<DownloadResponse, CacheError>)]()
    /// Fetches finished in tasks of their own.
    var results = [FetchResult]()
    /// The fetches of a store's transaction, one list a store task, as the store left them.
    var stored = [[Fetch]]()

    var isEmpty: Bool { responses.isEmpty && results.isEmpty && stored.isEmpty }
  }

  private struct State {
    var arrivals = Arrivals()
    var waiter: CheckedContinuation<Arrivals, Never>?
    /// Whether the producer waits for input (arrivals then set the signal).
    var watching = false
    /// The number of the current wait for arrivals: a timer ends only its own.
    var waits: UInt64 = 0
    /// A wake-up with nothing in it came (``receive(_:)`` of no results: the transport holds
    /// more back) while no one waited: the next take returns at once.
    var nudged = false
  }

  private let state = Mutex(State())
  /// Set by arrivals while the producer waits for input; nil when no pipe could be made.
  let wake = WakeSignal()
  /// The time a wait's deadline is read on, and the timers that end waits.
  private let clock: any PrefetchClock

  /// An inbox whose waits end at their deadlines on `clock`.
  init(clock: any PrefetchClock = SystemPrefetchClock()) { self.clock = clock }

  /// Adds the result of a fetch finished in a task of its own.
  func add(_ result: FetchResult) { arrive(Arrivals(results: [result])) }

  /// Adds the fetches a store task stored (or failed to).
  func add(stored fetches: [Fetch]) { arrive(Arrivals(stored: [fetches])) }

  func receive(_ results: [(ticket: UInt64, result: Result<DownloadResponse, CacheError>)]) {
    arrive(Arrivals(responses: results))
  }

  /// Adds `more`, waking the producer if it waits (after the lock is released).
  private func arrive(_ more: Arrivals) {
    let (woken, signal) = state.withLock {
      state -> ((CheckedContinuation<Arrivals, Never>, Arrivals)?, Bool) in
      state.arrivals.responses += more.responses
      state.arrivals.results += more.results
      state.arrivals.stored += more.stored
      if more.isEmpty && state.waiter == nil { state.nudged = true }
      let signal = state.watching
      state.watching = false
      guard let waiter = state.waiter else { return (nil, signal) }
      state.waiter = nil
      defer { state.arrivals = Arrivals() }
      return ((waiter, state.arrivals), signal)
    }
    if signal { wake?.signal() }
    if let (waiter, arrivals) = woken { waiter.resume(returning: arrivals) }
  }

  /// Before the producer reads its input while work is outstanding: whether it may block (no
  /// arrivals yet, and a ``wake`` to end the wait with). Arrivals from now until
  /// ``stopWatching()`` set the signal once. A signal left over ends a later wait early; the
  /// producer then finds nothing and waits again.
  func watch() -> Bool {
    guard wake != nil else { return false }
    return state.withLock { state in
      state.watching = state.arrivals.isEmpty
      return state.watching
    }
  }

  /// After the read: arrivals no longer set the signal.
  func stopWatching() { state.withLock { $0.watching = false } }

  /// Whether anything arrived since the last take.
  var hasArrivals: Bool { state.withLock { !$0.arrivals.isEmpty } }

  /// Everything that arrived since the last take, without waiting (maybe nothing).
  func takeNow() -> Arrivals {
    state.withLock { state in
      defer { state.arrivals = Arrivals() }
      return state.arrivals
    }
  }

  /// Everything that arrived since the last take, waiting for something when nothing did: at
  /// most until `deadline`, when there is one (then maybe nothing). Only the producer calls it
  /// (one waiter at a time).
  func take(before deadline: ContinuousClock.Instant? = nil) async -> Arrivals {
    // Read before the lock is taken: the clock is another component.
    let passed = deadline.map { $0 <= clock.now() } == true
    return await withCheckedContinuation { waiter in
      let (ready, wait) = state.withLock { state -> (Arrivals?, UInt64) in
        guard state.arrivals.isEmpty else {
          defer { state.arrivals = Arrivals() }
          return (state.arrivals, 0)
        }
        if state.nudged || passed {
          state.nudged = false
          return (Arrivals(), 0)
        }
        state.waits &+= 1
        state.waiter = waiter
        return (nil, state.waits)
      }
      if let ready { return waiter.resume(returning: ready) }
      // Set once the waiter is in place; it ends this wait only, never a later one.
      if let deadline { clock.setTimer(at: deadline) { [weak self] in self?.expire(wait) } }
    }
  }

  /// The timer of wait number `wait` fired: that wait, if it still waits, ends with nothing.
  private func expire(_ wait: UInt64) {
    let expired = state.withLock { state -> CheckedContinuation<Arrivals, Never>? in
      guard state.waits == wait, let waiter = state.waiter else { return nil }
      state.waiter = nil
      return waiter
    }
    expired?.resume(returning: Arrivals())
  }
}
