import FoundationEssentials
import Glibc
import Synchronization

/// Small POSIX file helpers with errors a user can act on.
package enum FileIO {
  /// Logical and allocated size of the file at `path`, or nil when it does not exist.
  package static func sizes(of path: String) -> (size: Int64, allocated: Int64)? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return (Int64(info.st_size), Int64(info.st_blocks) * 512)
  }

  /// Whether a regular file exists at `path`.
  package static func isFile(_ path: String) -> Bool { sizes(of: path) != nil }

  /// Removes the file at `path`; a missing file is fine.
  @discardableResult
  static func unlinkIfPresent(_ path: String) throws -> Bool {
    if unlink(path) == 0 { return true }
    if errno == ENOENT { return false }
    throw CacheError.posix("cannot remove", path: path)
  }

  /// Renames `source` to `destination` atomically, replacing it.
  package static func rename(_ source: String, to destination: String) throws {
    guard Glibc.rename(source, destination) == 0 else {
      throw CacheError.posix("cannot move \(source) to", path: destination)
    }
  }

  /// Creates a new empty file in `directory` with a unique name and returns its path and
  /// descriptor. The name is `prefix` (which names this process: ``ProcessTag``) and a number
  /// counted in this process; the mode is 0666 less the umask, set by `open` itself (no
  /// `mkstemp` and `fchmod`: one system call a file, no random source).
  package static func makeTemporaryFile(in directory: String, prefix: String) throws -> (
    String, Int32
  ) {
    for _ in 0..<1000 {
      let number = temporaryFiles.add(1, ordering: .relaxed).newValue
      let path = "\(directory)/\(prefix)\(String(number, radix: 36))"
      let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
      if fd >= 0 { return (path, fd) }
      guard errno == EEXIST else { break }
    }
    throw CacheError.posix("cannot create a temporary file in", path: directory)
  }

  /// The folder `path` is in (`.` for a bare name).
  package static func folder(of path: String) -> String {
    let folder = parent(of: path)
    return folder.isEmpty ? "." : folder
  }

  /// `path` without its last component, as Foundation's `deletingLastPathComponent` gives
  /// it: `/a/b/` → `/a`, `/a//b/c` → `/a/b`, `/a` → `/`, `/` → `/`, `a` → the empty string.
  package static func parent(of path: String) -> String {
    let components = path.split(separator: "/")
    let absolute = path.hasPrefix("/")
    guard components.count > 1 else { return absolute ? "/" : "" }
    return (absolute ? "/" : "") + components.dropLast().joined(separator: "/")
  }

  /// The first `limit` bytes of the file at `path` (fewer when it is shorter; none when it
  /// cannot be read).
  package static func prefix(of path: String, upTo limit: Int) -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return Data() }
    defer { close(descriptor) }
    return Data(bytes(descriptor, at: 0, count: limit))
  }

  /// Up to `count` bytes of `descriptor` from `offset` (`pread`, again after an interrupt):
  /// fewer at the end of the file or on a read error.
  package static func bytes(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: max(0, count))
    var done = 0
    while done < buffer.count {
      let n = buffer.withUnsafeMutableBytes { raw in
        pread(descriptor, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(offset + done))
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      done += n
    }
    return Array(buffer[..<done])
  }

  /// `name` inside `folder` (`name` alone when `folder` is empty).
  package static func path(_ name: String, in folder: String) -> String {
    folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }

  /// Temporary files made by this process, for their names.
  private static let temporaryFiles = Atomic<UInt64>(0)

  /// Writes all `count` bytes at `bytes` to `descriptor`, again after a partial write or an
  /// interrupt; `display` names the file in the error.
  package static func writeAll(
    _ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int, display: String
  ) throws {
    var done = 0
    while done < count {
      let n = write(descriptor, bytes + done, count - done)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw CacheError.posix("cannot write", path: display) }
      done += n
    }
  }

  /// Writes all of `bytes` to `descriptor`, as ``writeAll(_:_:count:display:)`` (nothing for
  /// an empty buffer).
  package static func writeAll(
    _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, display: String
  )
    throws
  {
    guard let start = bytes.baseAddress else { return }
    try writeAll(descriptor, start, count: bytes.count, display: display)
  }

  /// Writes `bytes` into a new temporary file in `directory` (named with `prefix`) and closes
  /// it; returns its path. A file left half-written by an error is removed.
  package static func writeTemporaryFile(_ bytes: Data, in directory: String, prefix: String) throws
    -> String
  {
    let (path, descriptor) = try makeTemporaryFile(in: directory, prefix: prefix)
    defer { close(descriptor) }
    do {
      try bytes.withUnsafeBytes { try writeAll(descriptor, $0, display: path) }
    } catch {
      unlink(path)
      throw error
    }
    return path
  }

  /// Copies the regular file at `source` over `destination` (created or truncated).
  package static func copy(_ source: String, to destination: String) throws {
    let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    guard output >= 0 else { throw CacheError.posix("cannot create", path: destination) }
    defer { close(output) }
    try copy(source, into: output, display: destination)
  }

  /// Copies the regular file at `source` into the open descriptor `output`.
  static func copy(_ source: String, into output: Int32, display: String) throws {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw CacheError.posix("cannot open", path: source) }
    defer { close(input) }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw CacheError.posix("cannot read", path: source) }
      if count == 0 { return }
      try buffer.withUnsafeBytes {
        try writeAll(output, UnsafeRawBufferPointer(rebasing: $0.prefix(count)), display: display)
      }
    }
  }

  /// Writes `data` to `path` through a temporary file in `tmpDirectory` (by default the
  /// file's own folder) and a rename.
  package static func writeAtomically(_ data: Data, to path: String, tmpDirectory: String? = nil)
    throws
  {
    let (tmp, fd) = try makeTemporaryFile(
      in: tmpDirectory ?? folder(of: path), prefix: "write-\(ProcessTag.current)-")
    defer { close(fd) }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == data.count else {
      let code = errno
      unlink(tmp)
      throw CacheError.posix("cannot write", path: tmp, code: code)
    }
    do { try rename(tmp, to: path) } catch {
      unlink(tmp)
      throw error
    }
  }
}
