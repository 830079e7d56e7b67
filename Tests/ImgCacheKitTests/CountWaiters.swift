/// Those waiting for a count (requests submitted, timers set) to reach theirs: how a test waits
/// on an event instead of on time. Kept inside a lock's state; the waiters it hands back are
/// resumed after the lock is released.
struct CountWaiters {
  private var waiting = [(count: Int, waiter: CheckedContinuation<Void, Never>)]()

  /// Keeps `waiter` until the count reaches `count`; false (keeping nothing) when `current`
  /// has reached it already, and the caller resumes it at once.
  mutating func wait(for count: Int, current: Int, _ waiter: CheckedContinuation<Void, Never>)
    -> Bool
  {
    guard current < count else { return false }
    waiting.append((count, waiter))
    return true
  }

  /// The waiters whose count `current` has reached, taken out.
  mutating func reached(_ current: Int) -> [CheckedContinuation<Void, Never>] {
    defer { waiting.removeAll { $0.count <= current } }
    return waiting.filter { $0.count <= current }.map(\.waiter)
  }
}
