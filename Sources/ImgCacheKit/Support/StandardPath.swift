import Glibc

/// A path as Foundation's `URL(fileURLWithPath:).standardizedFileURL.path` gives it (Swift
/// 6.3), without that call, whose first use builds a `Set` the runtime finds the conformances
/// of by scanning every conformance record of the binary (docs/architecture.md, Start-up).
/// `TextTests` holds the two equal over a table of paths; they differ where Foundation is not
/// POSIX: a relative path's `..` after an empty segment (`.//../x`) goes up from the working
/// folder here, as the kernel reads it.
package enum StandardPath {
  private static let slash = UInt8(ascii: "/")

  /// `path` absolute (against the working folder), with `.` and `..` taken out lexically,
  /// repeated and trailing slashes dropped, and a leading `~` or `~user` replaced by that
  /// user's home folder. Symbolic links stay as written. Slashes are bytes: a combining mark
  /// after one leaves it a separator. Nil when a relative `path` meets a working folder that
  /// cannot be found (removed meanwhile).
  package static func of(_ path: String) -> String? {
    var path = expandingTilde(path)
    if path.utf8.first != slash {
      guard let folder = workingFolder() else { return nil }
      path = folder + "/" + path
    }
    var parts: [Substring] = []
    for part in path.utf8.split(separator: slash) {
      switch part.count {
      case 1 where part.first == UInt8(ascii: "."): continue
      case 2 where part.allSatisfy({ $0 == UInt8(ascii: ".") }): _ = parts.popLast()
      default: parts.append(Substring(part))
      }
    }
    var result = ""
    for part in parts {
      result += "/"
      result += String(part)
    }
    return result.isEmpty ? "/" : result
  }

  /// `~` or `~user` at the front replaced by the home folder of this process's user (its
  /// password entry, else `HOME`, else `/var/empty`) or of `user` (an unknown one leaves the
  /// path as it is). Foundation also reads `CFFIXED_USER_HOME` first, and takes the real user
  /// under `sudo`; neither is a cache directory's concern.
  private static func expandingTilde(_ path: String) -> String {
    guard path.utf8.first == UInt8(ascii: "~") else { return path }
    let bytes = path.utf8
    let end = bytes.firstIndex(of: slash) ?? bytes.endIndex
    let name = String(Substring(bytes[bytes.index(after: bytes.startIndex)..<end]))
    let rest = String(Substring(bytes[end...]))
    if !name.isEmpty { return home(ofUser: name).map { $0 + rest } ?? path }
    if let home = home(ofUser: nil) { return home + rest }
    if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
      return home + rest
    }
    return "/var/empty" + rest
  }

  /// The home folder in the password entry of `name`, or of the effective user when nil
  /// (`getpw*_r`: a caller on another thread keeps its own entry).
  private static func home(ofUser name: String?) -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    // The entry's strings live in `buffer`: read before its pointer is let go.
    return buffer.withUnsafeMutableBufferPointer { space -> String? in
      guard let base = space.baseAddress else { return nil }
      let status =
        name.map { getpwnam_r($0, &entry, base, space.count, &found) }
        ?? getpwuid_r(geteuid(), &entry, base, space.count, &found)
      guard status == 0, found != nil, let directory = entry.pw_dir else { return nil }
      return String(cString: directory)
    }
  }

  private static func workingFolder() -> String? {
    guard let folder = getcwd(nil, 0) else { return nil }
    defer { free(folder) }
    return String(cString: folder)
  }
}
