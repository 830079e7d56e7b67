import FoundationEssentials
import Glibc

/// Directory listing without Foundation's per-entry overhead.
package enum DirectoryListing {
  /// The names in `directory` (no `.` or `..`); empty when it cannot be read.
  package static func names(in directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names = [String]()
    while let entry = readdir(dir) {
      let name = Self.name(of: entry)
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The name of the directory entry at `entry`, read in place. `d_name` is declared 256
  /// bytes, but a record is only as long as its name: a copy of the whole field (what
  /// `withUnsafePointer(to: entry.pointee.d_name)` makes) read past the end of `readdir`'s
  /// buffer, and crashed `clean` over 160,000 files when a short last record sat before an
  /// unmapped page.
  package static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafeMutablePointer(to: &entry.pointee.d_name) {
      String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
    }
  }
}

/// Recursive removal, relative to directory descriptors (`unlinkat`), using `d_type` to avoid
/// a `stat` per file: what `rm -rf` does.
package enum FileTree {
  /// Removes `path` and, when it is a directory, everything under it. Missing is fine.
  package static func remove(_ path: String) throws {
    if unlink(path) == 0 || errno == ENOENT { return }
    guard errno == EISDIR || errno == EPERM else {
      throw CacheError.posix("cannot remove", path: path)
    }
    try removeDirectory(at: AT_FDCWD, name: path, display: path)
  }

  /// Removes the directory `name` in `parent` and everything under it, never following a link.
  static func removeDirectory(at parent: Int32, name: String, display: String) throws {
    let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return }
      throw CacheError.posix("cannot open directory", path: display)
    }
    guard let dir = fdopendir(fd) else {
      close(fd)
      throw CacheError.posix("cannot read directory", path: display)
    }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
      let (child, type) = (DirectoryListing.name(of: entry), entry.pointee.d_type)
      if child == "." || child == ".." { continue }
      if type != DT_DIR && unlinkat(fd, child, 0) == 0 { continue }
      if type == DT_DIR || errno == EISDIR || errno == EPERM {
        try removeDirectory(at: fd, name: child, display: display + "/" + child)
      } else if errno != ENOENT {
        throw CacheError.posix("cannot remove", path: display + "/" + child)
      }
    }
    guard unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
      throw CacheError.posix("cannot remove directory", path: display)
    }
  }
}
