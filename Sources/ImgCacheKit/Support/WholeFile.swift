import FoundationEssentials
import Glibc

/// A whole file read at once.
package enum WholeFile {
  /// The bytes of the file at `path`; `.tooLarge` past `limit`, `.localIO` when it cannot be
  /// read or is not a regular file (a FIFO or a device is never waited on).
  package static func read(_ path: String, limit: Int) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: path) }
    return try read(fd, path: path, limit: limit)
  }

  /// As ``read(_:limit:)``, or nil when nothing can be seen at `path`: no such file, a
  /// component of it no folder, or a folder on the way that cannot be searched (as
  /// FoundationEssentials' `FileManager.contents(atPath:)` with `fileExists(atPath:)` had it;
  /// those calls build an error dictionary whose key type the runtime looks up by scanning
  /// every conformance record of the binary: docs/architecture.md, Start-up).
  package static func readIfPresent(_ path: String, limit: Int) throws -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      var info = stat()
      if code == ENOENT || code == ENOTDIR || stat(path, &info) != 0 { return nil }
      throw CacheError.posix("cannot read", path: path, code: code)
    }
    return try read(fd, path: path, limit: limit)
  }

  /// Why a file that is there was not read (a failed call's reason is its `POSIXError`).
  package enum Refusal: Error, CustomStringConvertible {
    /// A FIFO, a folder, a device: read only when whole, never waited on.
    case notRegular
    /// Larger than the reader's limit.
    case larger(than: Int)
    /// Shorter at its end than `fstat` said at its start: written meanwhile.
    case shorter

    /// The reason, for a message that names the file.
    package var description: String {
      switch self {
      case .notRegular: "not a regular file"
      case .larger(let limit): "larger than \(limit) bytes"
      case .shorter: "it got shorter while read"
      }
    }
  }

  /// The reason in `error`, thrown by this type, without the path its message names.
  package static func reason(_ error: any Error) -> String {
    CacheError.describe((error as? CacheError)?.underlying ?? error)
  }

  /// The whole regular file open at `fd` (closed here).
  private static func read(_ fd: Int32, path: String, limit: Int) throws -> [UInt8] {
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CacheError.posix("cannot read", path: path) }
    guard info.st_mode & S_IFMT == S_IFREG else { throw refused(.notRegular, path) }
    guard info.st_size <= limit else { throw refused(.larger(than: limit), path) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(fd, $0.baseAddress.map { $0 + done }, $0.count - done)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        throw count == 0 ? refused(.shorter, path) : CacheError.posix("cannot read", path: path)
      }
      done += count
    }
    return bytes
  }

  private static func refused(_ refusal: Refusal, _ path: String) -> CacheError {
    if case .larger = refusal {
      return CacheError(.tooLarge, "\(path) is \(refusal)", underlying: refusal)
    }
    return CacheError(.localIO, "cannot read \(path): \(refusal)", underlying: refusal)
  }
}
