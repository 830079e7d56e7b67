import FoundationEssentials

/// HTTP dates (RFC 9110 §5.6.7), exactly: the IMF-fixdate servers send (`Sun, 06 Nov 1994
/// 08:49:37 GMT`) and the two obsolete forms a recipient must still accept (RFC 850's
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`). Anything else —
/// `UTC`, a two-digit year in an IMF date, a missing comma, an extra space, a one-digit hour,
/// a 31st of February, a twelve-digit year — is no date (nil), never a trap.
///
/// Written by hand: Swift's Glibc module hides `strptime`, Foundation's `DateFormatter` loads
/// ICU (milliseconds at start-up, on the path of every cache hit) and is lenient, and
/// libcurl's `curl_getdate` accepts many more forms than RFC 9110 allows.
public enum HTTPDate {
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ].map { Array($0.utf8) }
  private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map {
    Array($0.utf8)
  }
  private static let longDays = [
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
  ].map { Array($0.utf8) }

  /// The instant `text` names, or nil when it is not an HTTP date. `now` decides the century
  /// of an RFC 850 date's two-digit year (RFC 9110: never more than 50 years ahead).
  public static func parse(_ text: String, now: Date = Date()) -> Date? {
    var reader = Reader(bytes: Array(text.utf8))
    if let date = imfFixdate(&reader) { return date }
    reader.position = 0
    if let date = rfc850(&reader, now: now) { return date }
    reader.position = 0
    return asctime(&reader)
  }

  /// `Sun, 06 Nov 1994 08:49:37 GMT`
  private static func imfFixdate(_ r: inout Reader) -> Date? {
    guard r.oneOf(shortDays) != nil, r.literal(", "), let day = r.number(2), r.literal(" "),
      let month = r.oneOf(months), r.literal(" "), let year = r.number(4), r.literal(" "),
      let clock = r.clock(), r.literal(" GMT"), r.atEnd
    else { return nil }
    return instant(year: year, month: month + 1, day: day, clock)
  }

  /// `Sunday, 06-Nov-94 08:49:37 GMT`
  private static func rfc850(_ r: inout Reader, now: Date) -> Date? {
    guard r.oneOf(longDays) != nil, r.literal(", "), let day = r.number(2), r.literal("-"),
      let month = r.oneOf(months), r.literal("-"), let shortYear = r.number(2), r.literal(" "),
      let clock = r.clock(), r.literal(" GMT"), r.atEnd
    else { return nil }
    // The most recent year with these last two digits that is not more than 50 years ahead.
    let thisYear = Checked.int(1970 + now.timeIntervalSince1970 / 31_556_952) ?? 1970
    var year = thisYear - thisYear % 100 + shortYear
    if year > thisYear + 50 { year -= 100 }
    return instant(year: year, month: month + 1, day: day, clock)
  }

  /// `Sun Nov  6 08:49:37 1994`
  private static func asctime(_ r: inout Reader) -> Date? {
    guard r.oneOf(shortDays) != nil, r.literal(" "), let month = r.oneOf(months), r.literal(" ")
    else { return nil }
    let day: Int?
    if r.literal(" ") { day = r.number(1) } else { day = r.number(2) }
    guard let day, r.literal(" "), let clock = r.clock(), r.literal(" "), let year = r.number(4),
      r.atEnd
    else { return nil }
    return instant(year: year, month: month + 1, day: day, clock)
  }

  private static func instant(year: Int, month: Int, day: Int, _ clock: (Int, Int, Int)) -> Date? {
    let (hour, minute, second) = clock
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    // Four digits at most, so nothing below can overflow.
    guard year >= 1, (1...length).contains(day), hour <= 23, minute <= 59, second <= 60 else {
      return nil
    }
    let days = daysSinceEpoch(year: year, month: month, day: day)
    return Date(
      timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + second))
  }

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
  /// days_from_civil).
  private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// A cursor over the date's bytes; every match is exact (HTTP-date is case-sensitive).
  private struct Reader {
    let bytes: [UInt8]
    var position = 0

    var atEnd: Bool { position == bytes.count }

    mutating func literal(_ text: String) -> Bool {
      let expected = text.utf8
      guard position + expected.count <= bytes.count,
        bytes[position..<position + expected.count].elementsEqual(expected)
      else { return false }
      position += expected.count
      return true
    }

    /// Exactly `count` ASCII digits.
    mutating func number(_ count: Int) -> Int? {
      guard position + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[position..<position + count] {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      position += count
      return value
    }

    /// `HH:MM:SS`, two digits each.
    mutating func clock() -> (Int, Int, Int)? {
      guard let hour = number(2), literal(":"), let minute = number(2), literal(":"),
        let second = number(2)
      else { return nil }
      return (hour, minute, second)
    }

    /// The index of the word of `words` at the cursor.
    mutating func oneOf(_ words: [[UInt8]]) -> Int? {
      for (index, word) in words.enumerated()
      where position + word.count <= bytes.count
        && bytes[position..<position + word.count].elementsEqual(word)
      {
        position += word.count
        return index
      }
      return nil
    }
  }
}
