import FoundationEssentials
import Glibc

/// Copies of cached bodies placed where the user asked (`fetch -o FILE`).
public enum OutputFile {
  /// Places a copy (or, with `link`, a hard link) of `source` at `destination`. A regular file
  /// or a new name is written to a temporary file and renamed over it, so it is never seen
  /// partial; anything else (a device such as /dev/null, a fifo, a link) is opened and written
  /// into, as curl does — never replaced. New files get 0666 less the umask.
  public static func place(_ source: String, at destination: String, link: Bool) throws {
    let target = URL(fileURLWithPath: destination).standardizedFileURL.path
    var info = stat()
    if lstat(target, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
      guard !link else {
        throw CacheError(
          .invalidInput, "cannot link to \(destination): it is not a regular file")
      }
      return try writeInto(target, from: source, display: destination)
    }
    let temporary = target + ".imgcache-\(getpid())"
    unlink(temporary)
    do {
      if link {
        guard Glibc.link(source, temporary) == 0 else {
          throw CacheError.posix("cannot link \(source) to", path: destination)
        }
      } else {
        try FileIO.copy(source, to: temporary)
      }
      guard rename(temporary, target) == 0 else {
        throw CacheError.posix("cannot write", path: destination)
      }
    } catch {
      unlink(temporary)
      throw CacheError.io("cannot write \(destination)", error)
    }
  }

  /// Writes `source` into the existing non-regular file at `target` (following a link to a
  /// file, never creating through a dangling one).
  private static func writeInto(_ target: String, from source: String, display: String) throws {
    let output = open(target, O_WRONLY | O_CLOEXEC)
    guard output >= 0 else { throw CacheError.posix("cannot write", path: display) }
    defer { close(output) }
    var info = stat()
    if fstat(output, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
      ftruncate(output, 0)
    }
    try FileIO.copy(source, into: output, display: display)
  }
}
