import Dispatch

/// The executor the engine's tasks prefer (`withTaskExecutorPreference`): a concurrent
/// dispatch queue of its own instead of Swift's cooperative pool. A step of the engine may
/// block briefly — a statement on the index, a `KeyLock` attempt, a body's check, a `poll` of
/// the URL input — and the cooperative pool's threads must never block (Swift counts on them
/// for forward progress); a dispatch queue's may, and libdispatch adds a thread when they stay
/// blocked. Its own QoS class (`userInteractive`, which nothing else here uses) gives it
/// threads of its own: derivations busy on every core (`imgcache.blocking`) and blocking
/// work sent to `DispatchQueue.global()` never hold up the steps that keep transfers going.
/// See docs/architecture.md, Execution contexts.
package final class EngineExecutor: TaskExecutor {
  /// The one engine executor of the process.
  package static let shared = EngineExecutor()

  private let queue = DispatchQueue(
    label: "imgcache.engine", qos: .userInteractive, attributes: .concurrent)

  private static let marker = DispatchSpecificKey<Bool>()

  private init() { queue.setSpecific(key: Self.marker, value: true) }

  /// Whether the caller runs on the engine's executor.
  package static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
