/// JPEG XL: the SizeHeader of a bare codestream or of the one inside the container.
enum JXLParser {
  /// Reads bits least-significant first, as the JPEG XL spec does.
  private struct BitReader {
    let bytes: [UInt8]
    var position = 0

    mutating func read(_ count: Int) -> Int? {
      var value = 0
      for bit in 0..<count {
        let byte = position >> 3
        guard byte < bytes.count else { return nil }
        value |= Int((bytes[byte] >> UInt8(position & 7)) & 1) << bit
        position += 1
      }
      return value
    }

    /// The spec's U32(Bits(9), Bits(13), Bits(18), Bits(30)) distribution.
    mutating func sizeValue() -> Int? {
      guard let selector = read(2) else { return nil }
      return read([9, 13, 18, 30][selector])
    }
  }

  private static let ratios: [(Int, Int)] = [
    (1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1),
  ]

  static func codestream(_ s: some ByteSource, at offset: Int) -> ImageInfo? {
    guard let header = s.bytes(at: offset, count: min(16, max(0, s.length - offset))),
      !header.isEmpty
    else { return nil }
    var bits = BitReader(bytes: header)
    guard let small = bits.read(1) else { return nil }
    let height: Int
    if small == 1 {
      guard let v = bits.read(5) else { return nil }
      height = (v + 1) * 8
    } else {
      guard let v = bits.sizeValue() else { return nil }
      height = v + 1
    }
    guard let ratio = bits.read(3) else { return nil }
    let width: Int
    if ratio != 0 {
      let (num, den) = ratios[ratio - 1]
      width = height * num / den
    } else if small == 1 {
      guard let v = bits.read(5) else { return nil }
      width = (v + 1) * 8
    } else {
      guard let v = bits.sizeValue() else { return nil }
      width = v + 1
    }
    return ImageInfo(format: .jxl, width: width, height: height)
  }

  static func container(_ s: some ByteSource) -> ImageInfo? {
    for box in ISOBMFFParser.boxes(in: s, from: 0, to: s.length, limit: 256) {
      switch box.type {
      case "jxlc" where s.matches(box.start, [0xFF, 0x0A]):
        return codestream(s, at: box.start + 2)
      case "jxlp" where s.matches(box.start + 4, [0xFF, 0x0A]):
        return codestream(s, at: box.start + 6)
      default:
        continue
      }
    }
    return nil
  }
}
