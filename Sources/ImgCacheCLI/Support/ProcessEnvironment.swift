import FoundationEssentials
import Glibc

/// The process environment, read once from `environ`: Foundation's
/// `ProcessInfo.processInfo.environment` builds a new dictionary on every access (1.4 M
/// instructions each, a twentieth of a cache hit's start).
enum ProcessEnvironment {
  /// Every variable, by name.
  static let current: [String: String] = {
    var variables = [String: String]()
    var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = environ
    while let text = entry.pointee {
      let line = String(cString: text)
      if let equals = line.utf8.firstIndex(of: UInt8(ascii: "=")) {
        variables[String(line[..<equals])] = String(line[line.utf8.index(after: equals)...])
      }
      entry += 1
    }
    return variables
  }()
}

extension String {
  /// The string padded with spaces to `width` characters (Foundation's `padding(toLength:)`
  /// goes through NSString); never truncated.
  func padded(to width: Int) -> String {
    let missing = width - count
    return missing > 0 ? self + String(repeating: " ", count: missing) : self
  }

  /// The string cut or padded with spaces to exactly `width` characters, as Foundation's
  /// `padding(toLength:withPad:startingAt:)` gives it.
  func fitted(to width: Int) -> String {
    count > width ? String(prefix(max(0, width))) : padded(to: width)
  }
}
