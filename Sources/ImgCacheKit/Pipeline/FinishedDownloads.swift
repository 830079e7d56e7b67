import Synchronization

/// The results of the downloads a prefetch drives, taken in batches: what finished while the
/// producer was busy is taken at once — one wake-up and one batch of events, not one of each
/// per download.
///
/// Lock rule: `state` guards the list and the waiter only; the waiter is resumed after the
/// lock is released.
final class FinishedDownloads: Sendable {
  private struct State {
    var results = [FetchResult]()
    var waiter: CheckedContinuation<[FetchResult], Never>?
  }

  private let state = Mutex(State())

  /// Adds one download's result, waking the producer if it waits.
  func add(_ result: FetchResult) {
    let woken = state.withLock { state -> CheckedContinuation<[FetchResult], Never>? in
      state.results.append(result)
      guard let waiter = state.waiter else { return nil }
      state.waiter = nil
      return waiter
    }
    woken?.resume(
      returning: state.withLock { state in
        defer { state.results = [] }
        return state.results
      })
  }

  /// Every result added since the last take, waiting for one when there is none. Only the
  /// producer calls it (one waiter at a time).
  func take() async -> [FetchResult] {
    await withCheckedContinuation { waiter in
      let ready = state.withLock { state -> [FetchResult]? in
        guard state.results.isEmpty else {
          defer { state.results = [] }
          return state.results
        }
        state.waiter = waiter
        return nil
      }
      if let ready { waiter.resume(returning: ready) }
    }
  }
}
