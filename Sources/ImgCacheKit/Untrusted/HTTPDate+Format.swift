import FoundationEssentials

extension HTTPDate {
  private static let monthNames = Array("JanFebMarAprMayJunJulAugSepOctNovDec".utf8)
  private static let dayNames = Array("ThuFriSatSunMonTueWed".utf8)
  private static let template = Array("Thu, 01 Jan 1970 00:00:00 GMT".utf8)

  /// `seconds` since 1970 as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`); nil outside
  /// the years 1 to 9999, which the form cannot write. Written byte by byte into one string:
  /// the index turns every date it keeps as a number back into its text when an entry is read.
  package static func imfFixdate(seconds: Int64) -> String? {
    // 0001-01-01 and the end of 9999-12-31, so the arithmetic below stays small.
    guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return nil }
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let clock = Int(seconds - Int64(days) * 86_400)
    let (year, month, day) = civil(daysSinceEpoch: days)
    let weekday = ((days % 7) + 7) % 7
    return String(unsafeUninitializedCapacity: 29) { out in
      func put(_ names: [UInt8], _ index: Int, at offset: Int) {
        for position in 0..<3 { out[offset + position] = names[index * 3 + position] }
      }
      func put(_ value: Int, digits count: Int, at offset: Int) {
        var value = value
        for position in stride(from: offset + count - 1, through: offset, by: -1) {
          out[position] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
        }
      }
      for (offset, byte) in template.enumerated() { out[offset] = byte }
      put(dayNames, weekday, at: 0)
      put(day, digits: 2, at: 5)
      put(monthNames, month - 1, at: 8)
      put(year, digits: 4, at: 12)
      put(clock / 3_600, digits: 2, at: 17)
      put(clock / 60 % 60, digits: 2, at: 20)
      put(clock % 60, digits: 2, at: 23)
      return 29
    }
  }

  /// The seconds since 1970 `text` names when it is an IMF-fixdate written exactly as
  /// ``imfFixdate(seconds:)`` writes it (its weekday right, no leap second): the form the index
  /// keeps as a number, since the text comes back from it byte for byte. Nil otherwise.
  package static func canonicalSeconds(of text: String) -> Int64? {
    guard text.utf8.count == 29, let date = parse(text) else { return nil }
    let seconds = Int64(exactly: date.timeIntervalSince1970.rounded(.down))
    guard let seconds, imfFixdate(seconds: seconds) == text else { return nil }
    return seconds
  }

  /// The date of the proleptic Gregorian calendar `days` after 1970-01-01 (H. Hinnant's
  /// civil_from_days).
  private static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
