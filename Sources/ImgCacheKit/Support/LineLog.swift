import Glibc

/// A log file of lines that many processes append to, of bounded size (docs/design.md,
/// Metrics): each line is written whole by one `write` under an `flock` of the file, and a
/// file past ``limit`` is renamed `FILE.1` (replacing the previous one) before the next line,
/// so the two together never hold much more than twice the limit.
package enum LineLog {
  /// The size past which the file is rotated: 10 MiB.
  package static let limit: Int64 = 10 << 20

  /// Appends `line` (a line feed added) to the file at `path`, created when missing.
  package static func append(_ line: String, to path: String, limit: Int64 = limit) throws {
    var descriptor = try open(path)
    defer { if descriptor >= 0 { close(descriptor) } }
    // A file another process rotated while this one waited for the lock is reopened.
    for _ in 0..<10 {
      try lock(descriptor, path)
      var held = stat()
      var named = stat()
      guard fstat(descriptor, &held) == 0 else { throw CacheError.posix("cannot read", path: path) }
      if stat(path, &named) == 0 && named.st_ino == held.st_ino && named.st_dev == held.st_dev {
        if Int64(held.st_size) >= limit {
          guard rename(path, path + ".1") == 0 else {
            throw CacheError.posix("cannot rotate", path: path)
          }
        } else {
          var text = line + "\n"
          try text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            try FileIO.writeAll(descriptor, base, count: bytes.count, display: path)
          }
          return
        }
      }
      close(descriptor)
      descriptor = -1
      descriptor = try open(path)
    }
    throw CacheError(.busy, "cannot append to \(path): it keeps being rotated")
  }

  /// Takes the file's lock, waiting for it (again after a signal).
  private static func lock(_ descriptor: Int32, _ path: String) throws {
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else { throw CacheError.posix("cannot lock", path: path) }
    }
  }

  private static func open(_ path: String) throws -> Int32 {
    let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw CacheError.posix("cannot open", path: path) }
    return descriptor
  }
}
