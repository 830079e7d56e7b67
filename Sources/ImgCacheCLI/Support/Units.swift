import Foundation

/// Sizes and durations as DESIGN.md §4 writes them.
enum Units {
  /// Parses `500K`, `20M`, `1.5G`, `2GiB` (1024ⁿ), `10KB`, `1MB` (1000ⁿ), or bare bytes.
  static func size(_ text: String) -> Int64? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let number = trimmed.prefix { $0.isNumber || $0 == "." }
    let unit = trimmed.dropFirst(number.count).lowercased()
    guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, let value = Double(number),
      value.isFinite
    else { return nil }
    let multipliers: [String: Double] = [
      "": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1_048_576, "mib": 1_048_576,
      "g": 1_073_741_824, "gib": 1_073_741_824, "t": 1_099_511_627_776, "tib": 1_099_511_627_776,
      "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
    ]
    guard let multiplier = multipliers[unit] else { return nil }
    let bytes = (value * multiplier).rounded()
    guard bytes < 9.0e18, unit.isEmpty ? !number.contains(".") : true else { return nil }
    return Int64(bytes)
  }

  /// Parses `90s`, `30m`, `12h`, `7d`, `2w`, `500ms`, compounds like `1d12h`, and a leading `-`
  /// (negative ages mean "never"). A unit is required.
  static func duration(_ text: String) -> TimeInterval? {
    var rest = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
    var sign = 1.0
    if rest.hasPrefix("-") {
      sign = -1
      rest = rest.dropFirst()
    }
    let units: [(String, Double)] = [
      ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800),
    ]
    var total = 0.0
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let number = rest.prefix { $0.isNumber || $0 == "." }
      guard !number.isEmpty, let value = Double(number) else { return nil }
      rest = rest.dropFirst(number.count)
      guard let (unit, factor) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
      rest = rest.dropFirst(unit.count)
      total += value * factor
    }
    return sign * total
  }

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
    if seconds < 60 { return String(format: seconds < 10 ? "%.1fs" : "%.0fs", seconds) }
    let total = Int(seconds.rounded())
    let (d, h, m, s) = (total / 86_400, total % 86_400 / 3_600, total % 3_600 / 60, total % 60)
    if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
    if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
    return s > 0 ? "\(m)m \(s)s" : "\(m)m"
  }
}
