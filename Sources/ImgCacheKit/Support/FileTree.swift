import Foundation

/// Directory listing without Foundation's per-entry overhead.
enum DirectoryListing {
  /// The names in `directory` (no `.` or `..`); empty when it cannot be read.
  static func names(in directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names = [String]()
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}

/// Recursive removal.
enum FileTree {
  /// Removes `path` and, when it is a directory, everything under it. Missing is fine.
  static func remove(_ path: String) throws {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return }
      throw CacheError.posix("cannot inspect", path: path)
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      for name in DirectoryListing.names(in: path) { try remove(path + "/" + name) }
      guard rmdir(path) == 0 || errno == ENOENT else {
        throw CacheError.posix("cannot remove directory", path: path)
      }
    } else {
      try FileIO.unlinkIfPresent(path)
    }
  }
}
