import FoundationEssentials
import Glibc

/// A whole file read at once.
package enum WholeFile {
  /// The bytes of the file at `path`; `.tooLarge` past `limit`, `.localIO` when it cannot be
  /// read or is not a regular file (a FIFO or a device is never waited on).
  package static func read(_ path: String, limit: Int) throws -> [UInt8] {
    guard let bytes = try readIfPresent(path, limit: limit, missingIsError: true) else {
      throw CacheError.posix("cannot read", path: path, code: ENOENT)
    }
    return bytes
  }

  /// As ``read(_:limit:)``, or nil when nothing is at `path` (no such file, or a component
  /// of it is no folder): FoundationEssentials' `FileManager.contents(atPath:)` says nil for
  /// both and builds an error dictionary on the way, whose key type the runtime looks up by
  /// scanning every conformance record of the binary (docs/architecture.md, Start-up).
  package static func readIfPresent(_ path: String, limit: Int) throws -> [UInt8]? {
    try readIfPresent(path, limit: limit, missingIsError: false)
  }

  /// Why a file that is there was not read (a failed call's reason is its `POSIXError`).
  package enum Refusal: Error, CustomStringConvertible {
    case notRegular
    case larger(than: Int)

    package var description: String {
      switch self {
      case .notRegular: "not a regular file"
      case .larger(let limit): "larger than \(limit) bytes"
      }
    }
  }

  /// The reason in `error`, thrown by this type, without the path its message names.
  package static func reason(_ error: any Error) -> String {
    CacheError.describe((error as? CacheError)?.underlying ?? error)
  }

  private static func readIfPresent(_ path: String, limit: Int, missingIsError: Bool) throws
    -> [UInt8]?
  {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      if !missingIsError && (errno == ENOENT || errno == ENOTDIR) { return nil }
      throw CacheError.posix("cannot read", path: path)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CacheError.posix("cannot read", path: path) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw CacheError(
        .localIO, "cannot read \(path): \(Refusal.notRegular)", underlying: Refusal.notRegular)
    }
    guard info.st_size <= limit else {
      throw CacheError(
        .tooLarge, "\(path) is \(Refusal.larger(than: limit))",
        underlying: Refusal.larger(than: limit))
    }
    return try bytes(of: fd, count: Int(info.st_size), path: path)
  }

  private static func bytes(of fd: Int32, count: Int, path: String) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(fd, $0.baseAddress.map { $0 + done }, $0.count - done)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        throw count == 0
          ? CacheError(.localIO, "\(path) got shorter while read")
          : CacheError.posix("cannot read", path: path)
      }
      done += count
    }
    return bytes
  }
}
