import Glibc

// Foundation's text helpers that live in FoundationInternationalization on Linux (and would
// link ICU into the binary: docs/architecture.md, Start-up), written for the fixed formats
// imgcache reads and prints. Their results are those of the calls they replace.

extension StringProtocol {
  /// This text without the spaces and tabs at either end (Foundation's
  /// `trimmingCharacters(in: .whitespaces)`: tab and Unicode's space separators).
  package func trimmingWhitespace() -> String {
    trimming { scalar in
      // ASCII first: a Unicode property lookup costs thousands of instructions a scalar.
      scalar.isASCII
        ? scalar == " " || scalar == "\t" : scalar.properties.generalCategory == .spaceSeparator
    }
  }

  /// This text without white space or line ends at either end (Foundation's
  /// `trimmingCharacters(in: .whitespacesAndNewlines)`).
  package func trimmingWhitespaceAndNewlines() -> String {
    trimming { scalar in
      if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
      switch scalar.properties.generalCategory {
      case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
      default: return (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85
      }
    }
  }

  /// This text without the scalars at either end for which `drop` holds.
  package func trimming(where drop: (Unicode.Scalar) -> Bool) -> String {
    let scalars = unicodeScalars
    if let first = scalars.first, let last = scalars.last, !drop(first), !drop(last) {
      return String(self)
    }
    guard let first = scalars.firstIndex(where: { !drop($0) }),
      let last = scalars.lastIndex(where: { !drop($0) })
    else { return "" }
    return String(String.UnicodeScalarView(scalars[first...last]))
  }
}

/// Numbers printed as C's `printf` prints them, in the C locale (which a Swift program keeps:
/// it never calls `setlocale`): `String(format:)` without Foundation (hexadecimal: ``Hex``).
package enum Printf {
  /// `value` as `%.<digits>f`: fixed point, rounded to `digits` decimals.
  package static func fixed(_ value: Double, digits: Int) -> String {
    format("%.*f", Int32(clamping: digits), value)
  }

  /// `value` as `%.<digits>g`: the shorter of fixed and exponent forms, `digits` significant.
  package static func general(_ value: Double, digits: Int) -> String {
    format("%.*g", Int32(clamping: digits), value)
  }

  private static func format(_ pattern: String, _ precision: Int32, _ value: Double) -> String {
    withVaList([precision, value]) { arguments in
      var buffer = [CChar](repeating: 0, count: 64)
      let written = vsnprintf(&buffer, buffer.count, pattern, arguments)
      guard written >= 0 else { return "\(value)" }
      if Int(written) < buffer.count {
        return String(
          decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
      // A very large number in fixed point: measured, then written in full.
      buffer = [CChar](repeating: 0, count: Int(written) + 1)
      return withVaList([precision, value]) { again in
        _ = vsnprintf(&buffer, buffer.count, pattern, again)
        return String(
          decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
    }
  }
}

extension StringProtocol {
  /// This text with each `%XX` replaced by its byte, or nil when a `%` is not followed by two
  /// hexadecimal digits or the bytes are not UTF-8 (Foundation's `removingPercentEncoding`).
  package var percentDecoded: String? {
    var bytes = [UInt8]()
    var iterator = utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(Hex.value(of:)),
        let low = iterator.next().flatMap(Hex.value(of:))
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }
}

extension [String] {
  /// The strings with `separator` between them, as `joined(separator:)` gives them, in code
  /// the compiler specializes: the standard library's is generic at run time, and its first
  /// call finds the element type's conformance by scanning every conformance record of the
  /// binary (200,000 instructions; docs/architecture.md, Start-up). For what a hit builds.
  package func concatenated(separator: String) -> String {
    var result = ""
    var first = true
    for element in self {
      if !first { result += separator }
      result += element
      first = false
    }
    return result
  }
}
