import FoundationEssentials

/// `Retry-After` (RFC 9110 §10.2.3), read strictly: delta-seconds (ASCII digits only) or an
/// HTTP date (``HTTPDate``). Anything else is no wait at all (nil), never a trap: a sign, a
/// fraction, a date in another form. A delta too large for any integer, or a date decades
/// ahead, is ``longest``; a date already past is no wait (0).
public enum RetryAfter {
  /// The longest wait ever read: ten years, far beyond any cap a policy sets.
  public static let longest: TimeInterval = 10 * 365 * 86_400

  /// The wait `text` asks for, in seconds from `now`; nil when it is neither form.
  public static func seconds(_ text: String, now: Date) -> TimeInterval? {
    let value = text.trimming { $0 == " " || $0 == "\t" }
    guard !value.isEmpty else { return nil }
    if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      // All digits: beyond Int64 is still a (very long) wait.
      guard let delta = Checked.digits(value) else { return longest }
      return min(TimeInterval(delta), longest)
    }
    guard let date = HTTPDate.parse(value, now: now) else { return nil }
    let wait = date.timeIntervalSince(now)
    guard wait.isFinite else { return nil }
    return min(max(0, wait), longest)
  }
}
