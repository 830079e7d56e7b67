import FoundationEssentials

/// Sizes and durations as docs/design.md (Command line) writes them, parsed and written back.
public enum PolicyValue {
  private static let sizeUnits: [String: Double] = [
    "": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1_048_576, "mib": 1_048_576,
    "g": 1_073_741_824, "gib": 1_073_741_824, "t": 1_099_511_627_776, "tib": 1_099_511_627_776,
    "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
  ]
  private static let durationUnits: [(String, Double)] = [
    ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800),
  ]

  /// Parses `500K`, `20M`, `1.5G`, `2GiB` (1024ⁿ), `10KB`, `1MB` (1000ⁿ), or bare bytes.
  public static func size(_ text: String) -> Int64? {
    let trimmed = text.trimmingWhitespace()
    let number = trimmed.prefix { $0.isNumber || $0 == "." }
    let unit = trimmed.dropFirst(number.count).lowercased()
    guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, let value = Double(number),
      value.isFinite, let multiplier = sizeUnits[unit]
    else { return nil }
    let bytes = (value * multiplier).rounded()
    guard bytes < 9.0e18, unit.isEmpty ? !number.contains(".") : true else { return nil }
    return Int64(bytes)
  }

  /// The fastest rate accepted: a million requests a second.
  public static let maxRate = 1_000_000.0

  /// The slowest rate accepted: one request a day.
  public static let minRate = 1.0 / 86_400

  /// Parses a rate of requests (curl's `--rate`): `10/s`, `600/m`, `3600/h`, `2/d`, `0.5/s`,
  /// a bare number (a second), or `0` (none). Returns requests a second (0: none); nil for
  /// anything else, a negative rate, or one outside ``minRate``…``maxRate``.
  public static func rate(_ text: String) -> Double? {
    let trimmed = text.trimmingWhitespace().lowercased()
    let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count <= 2, let count = parts.first, !count.isEmpty,
      count.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      count.filter({ $0 == "." }).count <= 1, let value = Double(count), value.isFinite
    else { return nil }
    let periods: [Substring: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
    guard let period = parts.count == 2 ? periods[parts[1]] : 1 else { return nil }
    let perSecond = value / period
    guard perSecond <= maxRate, perSecond == 0 || perSecond >= minRate else { return nil }
    return perSecond
  }

  /// `rate` written back: `0`, or requests a second, a minute or an hour, whichever is whole.
  public static func text(rate perSecond: Double) -> String {
    guard perSecond > 0 else { return "0" }
    guard perSecond <= maxRate else { return "\(perSecond)/s" }
    for (unit, period) in [("s", 1.0), ("m", 60.0), ("h", 3_600.0), ("d", 86_400.0)] {
      let count = perSecond * period
      if abs(count - count.rounded()) < 1e-9 * max(1, count) {
        return "\(Int64(count.rounded()))/\(unit)"
      }
    }
    return "\(perSecond)/s"
  }

  /// The longest duration accepted: 100 years (so every duration converts to milliseconds).
  public static let maxDuration: TimeInterval = 100 * 365 * 86_400

  /// Parses `90s`, `30m`, `12h`, `7d`, `2w`, `500ms`, compounds like `1d12h`, and a leading `-`
  /// (negative ages mean "never"). A unit is required, except for `0`. Nil beyond
  /// ``maxDuration``.
  public static func duration(_ text: String) -> TimeInterval? {
    guard let seconds = unboundedDuration(text), seconds.isFinite, abs(seconds) <= maxDuration
    else { return nil }
    return seconds
  }

  private static func unboundedDuration(_ text: String) -> TimeInterval? {
    var rest = Substring(text.trimmingWhitespace().lowercased())
    if rest == "0" { return 0 }
    var sign = 1.0
    if rest.hasPrefix("-") {
      sign = -1
      rest = rest.dropFirst()
    }
    var total = 0.0
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let number = rest.prefix { $0.isNumber || $0 == "." }
      guard !number.isEmpty, let value = Double(number) else { return nil }
      rest = rest.dropFirst(number.count)
      guard let (unit, factor) = durationUnits.first(where: { rest.hasPrefix($0.0) }) else {
        return nil
      }
      rest = rest.dropFirst(unit.count)
      total += value * factor
    }
    return sign * total
  }

  /// A duration as a user writes it: `7d`, `15s`, `1d12h`; negative is `never`.
  public static func text(duration seconds: TimeInterval) -> String {
    if seconds < 0 { return "never" }
    if seconds == 0 { return "0s" }
    var rest = seconds
    var text = ""
    for (unit, factor) in durationUnits.reversed() where unit != "w" && rest >= factor {
      let count = (rest / factor).rounded(.down)
      text += "\(Int(count))\(unit)"
      rest -= count * factor
    }
    return text
  }

  /// A size as a user writes it: `100M`, `512K`, or bare bytes.
  public static func text(size bytes: Int64) -> String {
    for (unit, factor) in [("G", Int64(1_073_741_824)), ("M", 1_048_576), ("K", 1024)]
    where bytes >= factor && bytes % factor == 0 {
      return "\(bytes / factor)\(unit)"
    }
    return "\(bytes)"
  }
}
