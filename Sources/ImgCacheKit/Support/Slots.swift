import Synchronization

/// At most `count` holders at a time; the others wait, in order, without blocking a thread
/// (derivations: each decodes a whole image, so a prefetch's window of transfers must not
/// become as many images in memory at once).
///
/// Lock rule: `state` guards the count and the queue only; a waiter is resumed after the lock
/// is released.
package final class Slots: Sendable {
  private struct State {
    var free: Int
    var waiters = [CheckedContinuation<Void, Never>]()
  }

  private let state: Mutex<State>

  /// `count` slots (at least one).
  package init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

  /// Runs `work` holding a slot.
  package func run<T>(_ work: () async throws -> T) async rethrows -> T {
    await acquire()
    defer { release() }
    return try await work()
  }

  /// Waits for a slot and takes it; ``release()`` gives it back (for a holder whose work
  /// outlives the task that waited, such as a derivation given up but still running).
  package func acquire() async {
    await withCheckedContinuation { waiter in
      let now = state.withLock { state -> Bool in
        guard state.free > 0 else {
          state.waiters.append(waiter)
          return false
        }
        state.free -= 1
        return true
      }
      if now { waiter.resume() }
    }
  }

  /// Gives back a slot taken by ``acquire()``.
  package func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiters.isEmpty else {
        state.free += 1
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?.resume()
  }
}
