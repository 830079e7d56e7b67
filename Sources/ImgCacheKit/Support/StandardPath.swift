import Glibc

/// A path as Foundation's `URL(fileURLWithPath:).standardizedFileURL.path` gives it, without
/// that call, whose first use builds a `Set` the runtime finds the conformances of by scanning
/// every conformance record of the binary (docs/architecture.md, Start-up). `FileIOTests`
/// holds the two equal over a table of paths.
package enum StandardPath {
  /// `path` absolute (against the working folder), with `.` and `..` taken out lexically,
  /// repeated and trailing slashes dropped, and a leading `~` or `~user` replaced by that
  /// user's home folder from the password database. Symbolic links stay as written. Nil when a
  /// relative `path` meets a working folder that cannot be found (removed meanwhile).
  package static func of(_ path: String) -> String? {
    var path = expandingTilde(path)
    if !path.hasPrefix("/") {
      guard let folder = workingFolder() else { return nil }
      path = folder + "/" + path
    }
    var parts: [Substring] = []
    for part in path.split(separator: "/") {
      switch part {
      case ".": continue
      case "..": _ = parts.popLast()
      default: parts.append(part)
      }
    }
    var result = ""
    for part in parts {
      result += "/"
      result += String(part)
    }
    return result.isEmpty ? "/" : result
  }

  /// `~` or `~user` at the front replaced by the home folder of this process's user or of
  /// `user`; an unknown user leaves the path as it is.
  private static func expandingTilde(_ path: String) -> String {
    guard path.hasPrefix("~") else { return path }
    let slash = path.firstIndex(of: "/") ?? path.endIndex
    let name = path[path.index(after: path.startIndex)..<slash]
    let entry = name.isEmpty ? getpwuid(getuid()) : getpwnam(String(name))
    guard let home = entry?.pointee.pw_dir else { return path }
    return String(cString: home) + path[slash...]
  }

  private static func workingFolder() -> String? {
    guard let folder = getcwd(nil, 0) else { return nil }
    defer { free(folder) }
    return String(cString: folder)
  }
}
