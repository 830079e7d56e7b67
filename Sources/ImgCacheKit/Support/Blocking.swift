import Dispatch
import Synchronization

/// Blocking work (SQLite transactions, renames, unlinks) run off Swift's cooperative pool, so a
/// busy index or a slow disk never starves the tasks that drive transfers and output.
package enum Blocking {
  private static let queue = DispatchQueue(
    label: "imgcache.blocking", qos: .userInitiated, attributes: .concurrent)

  /// The one queue that stores bodies into the cache, serial: it owns this process's store
  /// transactions (which SQLite would serialise anyway), off the cooperative pool.
  private static let stores = DispatchQueue(label: "imgcache.store", qos: .userInitiated)

  /// Runs `work`, a store into the cache, on the store queue and returns its result.
  package static func store<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws
    -> T
  {
    try await run(on: stores, work)
  }

  /// Runs `work` on the blocking queue and returns its result.
  package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
  {
    try await run(on: queue, work)
  }

  /// Runs `work` on `queue` and returns its result.
  private static func run<T: Sendable>(
    on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }

  /// Runs `work` on the blocking queue, waiting for it at most `limit` (nil: as long as it
  /// takes) and never past the task's cancellation: then `giveUp` is called and `timedOut` (or
  /// a `.cancelled` error) is thrown at once, while `work` goes on to its end in the background
  /// and its result is dropped. For work that cannot be interrupted where it may hang (a
  /// decoder inside libvips).
  package static func run<T: Sendable>(
    waitingAtMost limit: Duration?, timedOut: CacheError,
    giveUp: @escaping @Sendable () -> Void, _ work: @escaping @Sendable () throws -> T
  ) async throws -> T {
    let first = FirstResult<T>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        first.attach(continuation)
        queue.async { first.resume(with: Result { try work() }) }
        if let limit {
          let delay =
            limit.checkedNanoseconds.map { DispatchTimeInterval.nanoseconds(Int($0)) } ?? .never
          DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            if first.resume(with: .failure(timedOut)) { giveUp() }
          }
        }
      }
    } onCancel: {
      if first.resume(with: .failure(CacheError(.cancelled, "cancelled"))) { giveUp() }
    }
  }
}

/// A continuation resumed once, by whichever result comes first; one that comes before the
/// continuation is attached waits for it.
///
/// Lock rule: `state` guards the state only; the continuation is resumed after the lock is
/// released.
private final class FirstResult<T: Sendable>: Sendable {
  private enum State {
    case empty
    case waiting(CheckedContinuation<T, any Error>)
    case early(Result<T, any Error>)
    case done
  }

  private let state = Mutex<State>(.empty)

  /// Attaches the continuation; resumes it at once when a result came first.
  func attach(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      switch state {
      case .empty:
        state = .waiting(continuation)
        return nil
      case .early(let result):
        state = .done
        return result
      case .waiting, .done:
        return nil
      }
    }
    if let early { continuation.resume(with: early) }
  }

  /// Resumes with `result` unless another came first; returns whether this one won.
  @discardableResult
  func resume(with result: Result<T, any Error>) -> Bool {
    let (won, continuation) = state.withLock {
      state -> (Bool, CheckedContinuation<T, any Error>?) in
      switch state {
      case .empty:
        state = .early(result)
        return (true, nil)
      case .waiting(let continuation):
        state = .done
        return (true, continuation)
      case .early, .done:
        return (false, nil)
      }
    }
    continuation?.resume(with: result)
    return won
  }
}
