import FoundationEssentials
import Glibc

/// A directory held open by descriptor, whose children are reached without following
/// symlinks (`openat` with `O_NOFOLLOW`, `unlinkat`, `fstatat` with `AT_SYMLINK_NOFOLLOW`):
/// whatever replaces a folder inside the cache by a link, nothing outside it is listed,
/// deleted or written through it. Not `Sendable`: used by one thread, then closed.
package final class OpenDirectory {
  /// What stands at a name inside the cache.
  package enum Child {
    /// A real directory, opened.
    case directory(OpenDirectory)
    /// Nothing.
    case missing
    /// A symlink or a file where a directory belongs: not the cache's, never entered.
    case foreign
  }

  /// The descriptor.
  let descriptor: Int32
  /// The path, for messages.
  package let path: String

  private init(descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
  }

  deinit { close(descriptor) }

  /// Opens the directory at `path` (its own path may go through links: `$DIR` is the user's
  /// choice); nil when it does not exist.
  package static func open(_ path: String) throws -> OpenDirectory? {
    let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      throw CacheError.posix("cannot open directory", path: path)
    }
    return OpenDirectory(descriptor: fd, path: path)
  }

  /// The directory `name` inside this one, never through a symlink.
  package func child(_ name: String) throws -> Child {
    let fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if fd >= 0 { return .directory(OpenDirectory(descriptor: fd, path: path + "/" + name)) }
    switch errno {
    case ENOENT: return .missing
    case ELOOP, ENOTDIR: return .foreign
    default: throw CacheError.posix("cannot open directory", path: path + "/" + name)
    }
  }

  /// The names inside (no `.` or `..`), with whether each is a directory (from `d_type`).
  package func entries() throws -> [(name: String, isDirectory: Bool)] {
    let copy = dup(descriptor)
    guard copy >= 0, let dir = fdopendir(copy) else {
      if copy >= 0 { close(copy) }
      throw CacheError.posix("cannot read directory", path: path)
    }
    defer { closedir(dir) }
    rewinddir(dir)
    var entries = [(String, Bool)]()
    while let entry = readdir(dir) {
      let name = DirectoryListing.name(of: entry)
      if name != "." && name != ".." { entries.append((name, entry.pointee.d_type == DT_DIR)) }
    }
    return entries
  }

  /// The names inside.
  package func names() throws -> [String] { try entries().map(\.name) }

  /// Syncs the directory's entries (`fsync`): names given inside it survive a power loss.
  package func sync() throws {
    guard fsync(descriptor) == 0 else { throw CacheError.posix("cannot sync", path: path) }
  }

  /// `lstat` of `name`, or nil when it is gone.
  package func status(_ name: String) -> stat? {
    var info = stat()
    guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
    return info
  }

  /// Opens the file `name` for reading, never through a link; nil when it is gone. The caller
  /// closes the descriptor.
  package func openFile(_ name: String) throws -> Int32? {
    let fd = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    if fd >= 0 { return fd }
    if errno == ENOENT { return nil }
    throw CacheError.posix("cannot open", path: path + "/" + name)
  }

  /// Removes the file (or link) `name`; false when it was not there.
  @discardableResult
  package func unlink(_ name: String) throws -> Bool {
    if unlinkat(descriptor, name, 0) == 0 { return true }
    if errno == ENOENT { return false }
    throw CacheError.posix("cannot remove", path: path + "/" + name)
  }

  /// Removes `name` and, when it is a real directory, everything under it; a link is removed,
  /// never followed. Missing is fine.
  package func removeTree(_ name: String) throws {
    if unlinkat(descriptor, name, 0) == 0 || errno == ENOENT { return }
    guard errno == EISDIR || errno == EPERM else {
      throw CacheError.posix("cannot remove", path: path + "/" + name)
    }
    try FileTree.removeDirectory(at: descriptor, name: name, display: path + "/" + name)
  }

  /// Renames `name` to `newName` inside this directory.
  package func rename(_ name: String, to newName: String) throws {
    guard renameat(descriptor, name, descriptor, newName) == 0 else {
      throw CacheError.posix("cannot rename \(path)/\(name) to", path: newName)
    }
  }
}
