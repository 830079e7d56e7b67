import FoundationEssentials
import Glibc

/// This process's mark in the names of its temporary files: its pid and start time, so that a
/// later process can tell a file's owner is gone (killed, even by `kill -9`) and remove it at
/// once instead of waiting for it to age.
package enum ProcessTag {
  /// `<pid>-<start time>` of this process.
  package static let current = "\(getpid())-\(startTime(of: getpid()) ?? 0)"

  /// The prefix of this process's temporary body files.
  package static var partPrefix: String { "part-\(current)-" }

  /// The start time of process `pid` in clock ticks since boot (field 22 of /proc/pid/stat),
  /// or nil when there is no such process.
  static func startTime(of pid: pid_t) -> UInt64? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 19 ? UInt64(fields[19]) : nil
  }

  /// Whether `name` is a temporary file (`<kind>-<pid>-<start>-…`) whose process is gone.
  package static func ownerIsGone(_ name: String) -> Bool {
    let parts = name.split(separator: "-", maxSplits: 3)
    guard parts.count == 4, let pid = pid_t(parts[1]), let start = UInt64(parts[2]) else {
      return false
    }
    return startTime(of: pid) != start
  }
}
