import FoundationEssentials
import Glibc

/// An exclusive `flock(2)` on a lock file, taken without waiting; released on `unlock` or exit.
package final class FileLock {
  private let descriptor: Int32

  /// Takes the lock at `path`, or returns nil when another process holds it past
  /// ``momentary``: a lock held for a moment only is no other process's work (a child a
  /// thread of this process is spawning holds a copy of every descriptor between its fork and
  /// its exec, a released lock's too).
  package init?(path: String) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot open lock file", path: path) }
    switch Self.momentary.take(fd) {
    case .taken: descriptor = fd
    case .busy:
      close(fd)
      return nil
    case .failed(let code):
      close(fd)
      throw CacheError.posix("cannot lock", path: path, code: code)
    }
  }

  /// How a lock held for a moment is waited for: 20 tries 5 ms apart (``init(path:)``).
  static let momentary = MomentaryLock(tries: 20, step: 5_000)

  /// Takes the lock at `path`, waiting for another process to release it.
  package init(waitingFor path: String) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot open lock file", path: path) }
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else {
        let code = errno
        close(fd)
        throw CacheError.posix("cannot lock", path: path, code: code)
      }
    }
    descriptor = fd
  }

  deinit { close(descriptor) }
}
