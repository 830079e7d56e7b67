import FoundationEssentials
import Glibc

/// A whole file read at once.
package enum WholeFile {
  /// The bytes of the file at `path`; `.tooLarge` past `limit`, `.localIO` when it cannot be
  /// read.
  package static func read(_ path: String, limit: Int) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CacheError.posix("cannot read", path: path) }
    guard info.st_size <= limit else {
      throw CacheError(.tooLarge, "\(path) is larger than \(limit) bytes")
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
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
