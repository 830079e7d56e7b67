extension Duration {
  /// The duration in seconds, as a `Double` (`TimeInterval`).
  package var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }

  /// The duration in whole nanoseconds; nil past `Int64` (about 292 years).
  package var checkedNanoseconds: Int64? { checkedCount(perSecond: 1_000_000_000) }

  /// The duration in whole microseconds (rounded down); nil past `Int64`.
  package var checkedMicroseconds: Int64? { checkedCount(perSecond: 1_000_000) }

  /// The duration in whole units of which a second holds `perSecond` (a divisor of 10¹⁸);
  /// nil past `Int64`.
  private func checkedCount(perSecond: Int64) -> Int64? {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
    guard !overflow else { return nil }
    let (total, overflowSum) = whole.addingReportingOverflow(
      attoseconds / (1_000_000_000_000_000_000 / perSecond))
    return overflowSum ? nil : total
  }
}
