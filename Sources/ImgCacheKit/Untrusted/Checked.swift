import FoundationEssentials

/// Checked conversions for numbers that come from outside (headers, bodies, remote objects and
/// their metadata, config files, SVG attributes): each returns nil for a value it cannot
/// represent instead of trapping, so a hostile value is "unknown", never a crash
/// (docs/design.md, "Untrusted input").
public enum Checked {
  /// `value` rounded toward zero as an `Int`, or nil when it is NaN, infinite or out of range.
  public static func int(_ value: Double) -> Int? {
    guard value.isFinite, value > -9.2e18, value < 9.2e18 else { return nil }
    return Int(value)
  }

  /// `value` rounded toward zero as an `Int64`, or nil when it is NaN, infinite or out of range.
  public static func int64(_ value: Double) -> Int64? {
    int(value).map(Int64.init)
  }

  /// A length in pixels read as a floating-point number (an SVG attribute), rounded; nil
  /// unless finite, at least 0 and under a billion.
  public static func pixels(_ value: Double) -> Int? {
    guard value.isFinite, value >= 0, value < 1e9 else { return nil }
    return Int(value.rounded())
  }

  /// A non-negative decimal integer written with ASCII digits only (no sign, no space, no
  /// point), or nil: empty, another character, or beyond `Int64.max`.
  public static func digits<Text: StringProtocol>(_ text: Text) -> Int64? {
    guard !text.isEmpty else { return nil }
    var value: Int64 = 0
    for byte in text.utf8 {
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
      guard !overflowTimes, !overflowSum else { return nil }
      value = sum
    }
    return value
  }

  /// `a + b`, or nil on overflow.
  public static func sum(_ a: Int64, _ b: Int64) -> Int64? {
    let (result, overflow) = a.addingReportingOverflow(b)
    return overflow ? nil : result
  }

  /// The sum of `values`, or nil on overflow.
  public static func total<Values: Sequence<Int64>>(_ values: Values) -> Int64? {
    var result: Int64 = 0
    for value in values {
      guard let next = sum(result, value) else { return nil }
      result = next
    }
    return result
  }

  /// Seconds as whole milliseconds for a C `long` option, clamped to `1...limit` (a bad value
  /// never reaches a C API): NaN and negative become 1 ms.
  public static func milliseconds(_ seconds: TimeInterval, limit: Int = 2_147_483_647) -> Int {
    guard seconds.isFinite, seconds > 0 else { return 1 }
    return max(1, min(limit, int(seconds * 1000) ?? limit))
  }
}

extension Unicode.Scalar {
  /// Whether the scalar is a control character (C0, DEL, C1 — NEL among them) or a Unicode
  /// line or paragraph separator (U+2028, U+2029).
  package var isControlOrLineBreak: Bool {
    value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
  }
}

extension StringProtocol {
  /// Whether the text is one line of plain text: no control character but the tab, no Unicode
  /// line or paragraph separator. What a request header value and a config value must be.
  public var isSingleLine: Bool {
    !unicodeScalars.contains { $0 != "\t" && $0.isControlOrLineBreak }
  }
}

extension String {
  /// Whether the text holds a control character (the tab too) or a Unicode line or paragraph
  /// separator: never acceptable in a path given as a policy value, or a URL.
  public var containsControlCharacters: Bool {
    unicodeScalars.contains { $0.isControlOrLineBreak }
  }
}

extension FixedWidthInteger {
  /// `self + other`, or the bound it passed on overflow: counts read from outside add up
  /// without a trap.
  package func addingSaturating(_ other: Self) -> Self {
    let (sum, overflow) = addingReportingOverflow(other)
    guard overflow else { return sum }
    return other > 0 ? .max : .min
  }
}
