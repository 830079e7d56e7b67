extension Duration {
  /// The duration in whole nanoseconds; nil past `Int64` (about 292 years).
  package var checkedNanoseconds: Int64? {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return nil }
    let (total, overflowSum) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return overflowSum ? nil : total
  }
}

extension Duration {
  /// The duration in whole microseconds (rounded down); nil past `Int64`.
  package var checkedMicroseconds: Int64? {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    guard !overflow else { return nil }
    let (total, overflowSum) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000)
    return overflowSum ? nil : total
  }
}
