import Foundation
import Synchronization

/// One download's lock between processes: an exclusive `flock(2)` on `locks/<md5 of key>`.
/// The kernel drops it when its holder exits, even by SIGKILL, so it is never stale.
///
/// Lock files do not pile up (Nix's rule): the holder unlinks the file while it still holds
/// the lock, then marks it (one byte) before closing; a process that then gets the lock on
/// the old, marked file opens the path again. `clean` sweeps files no one holds.
final class KeyLock: Sendable {
  /// The lock file.
  let path: String
  private let descriptor: Int32
  private let released = Atomic<Bool>(false)

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  deinit { release() }

  /// Takes the lock at `path` without waiting; nil when another process holds it.
  static func attempt(_ path: String) throws -> KeyLock? {
    while true {
      let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
      guard fd >= 0 else { throw CacheError.posix("cannot open lock file", path: path) }
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
        let code = errno
        close(fd)
        if code == EWOULDBLOCK || code == EINTR { return nil }
        throw CacheError.posix("cannot lock", path: path, code: code)
      }
      var info = stat()
      if fstat(fd, &info) == 0, info.st_size == 0 { return KeyLock(path: path, descriptor: fd) }
      // Released and unlinked by its last holder: the path names a newer file, if any.
      close(fd)
    }
  }

  /// Takes the lock at `path`, checking every 5 ms (an `await`, never a blocked thread) until
  /// `deadline`, or until `idle` passes without the holder's `progress` changing (a holder
  /// stopped by SIGSTOP or Ctrl-Z never releases, and a second download beats a hang); nil
  /// when either passes or the task is cancelled first. `progress` is read every 100 ms.
  static func wait(
    for path: String, until deadline: ContinuousClock.Instant, idle: Duration,
    progress: () -> Int64
  ) async throws -> KeyLock? {
    var seen = progress()
    var idleDeadline = ContinuousClock.now + idle
    var checks = 0
    while true {
      if let lock = try attempt(path) { return lock }
      let now = ContinuousClock.now
      checks += 1
      if checks % 20 == 0 {
        let current = progress()
        if current != seen {
          seen = current
          idleDeadline = now + idle
        }
      }
      if now >= deadline || now >= idleDeadline || Task.isCancelled { return nil }
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  /// Unlinks, marks and releases the lock (once; also when the lock is dropped).
  func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    unlink(path)
    var mark: UInt8 = 0x2E
    _ = write(descriptor, &mark, 1)
    close(descriptor)
  }

  /// Removes the lock files under `directory` that no process holds; returns how many.
  static func sweep(_ directory: String) -> Int {
    var info = stat()
    // A real directory only: never create or unlink files through a link.
    guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return 0 }
    var removed = 0
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
      guard name.hasSuffix(".lock"), let lock = try? attempt(directory + "/" + name) else {
        continue
      }
      lock.release()
      removed += 1
    }
    return removed
  }
}
