import Foundation

/// An exclusive `flock(2)` on a lock file, taken without waiting; released on `unlock` or exit.
package final class FileLock {
  private let descriptor: Int32

  /// Takes the lock at `path`, or returns nil at once when another process holds it.
  package init?(path: String) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot open lock file", path: path) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      close(fd)
      if code == EWOULDBLOCK { return nil }
      throw CacheError.posix("cannot lock", path: path, code: code)
    }
    descriptor = fd
  }

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
