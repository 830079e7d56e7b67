/// SVG: an XML document whose root element is `<svg`; size from `width`/`height` in pixels,
/// else from `viewBox`. Reads at most the first 8 KiB.
enum SVGParser {
  static let headLimit = 8_192

  package static func parse(_ s: some ByteSource) -> ImageInfo? {
    guard let head = s.bytes(at: 0, count: min(s.length, headLimit)) else { return nil }
    var text = Substring(String(decoding: head, as: UTF8.self))
    if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
    text = text.drop(while: \.isWhitespace)
    // Skip the prolog: XML declaration, comments, doctype, processing instructions.
    while text.hasPrefix("<?") || text.hasPrefix("<!") {
      let closer = text.hasPrefix("<!--") ? "-->" : ">"
      guard let end = text.firstRange(of: closer) else { return nil }
      text = text[end.upperBound...].drop(while: \.isWhitespace)
    }
    guard text.hasPrefix("<svg"), let tagEnd = text.firstIndex(of: ">") else { return nil }
    let afterName = text.index(text.startIndex, offsetBy: 4)
    guard afterName < text.endIndex,
      text[afterName].isWhitespace || text[afterName] == ">"
        || text[afterName] == "/"
    else { return nil }
    let tag = text[afterName..<tagEnd]
    var width = attribute("width", in: tag).flatMap(pixels)
    var height = attribute("height", in: tag).flatMap(pixels)
    if width == nil || height == nil, let box = attribute("viewBox", in: tag) {
      let numbers = box.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
      if numbers.count == 4 {
        // `1e300`, `inf`, `nan`: out-of-range dimensions are unknown, never a trap.
        width = width ?? Checked.pixels(numbers[2])
        height = height ?? Checked.pixels(numbers[3])
      }
    }
    return ImageInfo(format: .svg, width: width, height: height)
  }

  private static func attribute(_ name: String, in tag: Substring) -> Substring? {
    var rest = tag
    while let range = rest.firstRange(of: name + "=") {
      let before =
        range.lowerBound == rest.startIndex ? " " : rest[rest.index(before: range.lowerBound)]
      let valueStart = range.upperBound
      guard valueStart < rest.endIndex else { return nil }
      let quote = rest[valueStart]
      if before.isWhitespace, quote == "\"" || quote == "'" {
        let body = rest[rest.index(after: valueStart)...]
        guard let close = body.firstIndex(of: quote) else { return nil }
        return body[..<close]
      }
      rest = rest[valueStart...]
    }
    return nil
  }

  /// A length in pixels ("120", "120px", "120.5"); nil for relative units such as "%" or "em".
  private static func pixels(_ value: Substring) -> Int? {
    var number = value.trimmingSpaces
    if number.hasSuffix("px") { number = number.dropLast(2) }
    return Double(number).flatMap(Checked.pixels)
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed().reduce(into: "") {
      $0.append($1)
    }[...]
  }
}
