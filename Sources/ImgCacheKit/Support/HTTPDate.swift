import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate servers send (`Sun, 06 Nov 1994 08:49:37
/// GMT`) and the two obsolete forms a recipient must still accept (RFC 850's
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`).
///
/// Written by hand: Swift's Glibc module hides `strptime`, Foundation's `DateFormatter` loads
/// ICU (milliseconds at start-up, on the path of every cache hit), and libcurl's
/// `curl_getdate` is not loaded before the first download.
enum HTTPDate {
  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  /// The instant `text` names, or nil when it is not an HTTP date.
  static func parse(_ text: String) -> Date? {
    let tokens = text.split { $0 == " " || $0 == "," || $0 == "-" }
    guard tokens.count >= 4 else { return nil }
    var month: Int?
    var numbers = [Int]()
    var clock: (Int, Int, Int)?
    for token in tokens.dropFirst() {
      if token.contains(":") {
        let parts = token.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        clock = (parts[0], parts[1], parts[2])
      } else if let number = Int(token) {
        numbers.append(number)
      } else if let index = months.firstIndex(of: token.lowercased()) {
        month = index + 1
      } else if token != "GMT" && token != "UTC" {
        return nil
      }
    }
    guard let month, let (hour, minute, second) = clock, numbers.count == 2 else { return nil }
    // IMF and RFC 850 give the day first; asctime gives it after the month, the year last.
    var (day, year) = (numbers[0], numbers[1])
    if year < 100 { year += year < 70 ? 2000 : 1900 }
    guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
      (0...60).contains(second), year >= 1970
    else { return nil }
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
}
