import Glibc

/// A thread of its own for a loop that blocks (libcurl's multi loop, a tool's watchdog):
/// a detached POSIX thread with the system's default stack.
/// Foundation's `Thread` does the same but lives in the full Foundation, which imgcache does
/// not link (docs/architecture.md, Start-up).
package enum DetachedThread {
  /// Starts `body` on a new detached thread. Returns false when the system refused a thread
  /// (`body` then never runs).
  @discardableResult
  package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(Body(run: body))
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { context in
        guard let context else { return nil }
        let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
        body.run()
        return nil
      }, box.toOpaque())
    guard created == 0 else {
      box.release()
      return false
    }
    pthread_detach(thread)
    return true
  }

  private final class Body: Sendable {
    let run: @Sendable () -> Void
    init(run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }
}
