import FoundationEssentials
import Glibc
import ImgCacheKit

/// Sizes and durations as people read them (parsing is the engine's ``PolicyValue``).
enum Units {
  /// `1.5 MiB`-style, one decimal, IEC units.
  static func formatBytes(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var index = 0
    while abs(value) >= 1024 && index < units.count - 1 {
      value /= 1024
      index += 1
    }
    guard index > 0 else { return "\(bytes) B" }
    // One decimal without Foundation's formatter (which costs more than the whole `size` query).
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10)) \(units[index])"
  }

  /// `2.5s`, `1m 30s`, `3h 20m`, `7d`.
  static func formatDuration(_ seconds: TimeInterval) -> String {
    if seconds < 0 { return "never" }
    if seconds < 60 { return Printf.fixed(seconds, digits: seconds < 10 ? 1 : 0) + "s" }
    guard let total = Checked.int(seconds.rounded()) else { return "unknown" }
    let (d, h, m, s) = (total / 86_400, total % 86_400 / 3_600, total % 3_600 / 60, total % 60)
    if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
    if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
    return s > 0 ? "\(m)m \(s)s" : "\(m)m"
  }

  /// `2026-11-22T10:00:00Z` (RFC 3339, UTC, whole seconds), without a formatter (`list` prints
  /// one per entry).
  static func formatTime(_ date: Date) -> String {
    // Beyond the year 9999 (or NaN), no time a user could read: never a trap.
    let seconds = date.timeIntervalSince1970.rounded(.down)
    guard seconds.isFinite, abs(seconds) < 253_402_300_800, let whole = Checked.int(seconds) else {
      return "unknown"
    }
    var time = time_t(whole)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }

  /// `text` right-aligned in `width` columns.
  static func padded(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}
