import Dispatch

/// Blocking work (SQLite transactions, renames, unlinks) run off Swift's cooperative pool, so a
/// busy index or a slow disk never starves the tasks that drive transfers and output.
enum Blocking {
  private static let queue = DispatchQueue(
    label: "imgcache.blocking", qos: .userInitiated, attributes: .concurrent)

  /// Runs `work` on the blocking queue and returns its result.
  static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try work() }) }
    }
  }
}
