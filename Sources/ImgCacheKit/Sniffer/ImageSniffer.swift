import FoundationEssentials

/// Detects an image's format by its full signature and reads its width and height from the
/// headers, without decoding pixels. Every read is bounds-checked and every loop bounded, so
/// truncated or hostile input yields nil ("not an image"), never a crash or a hang.
public enum ImageSniffer {
  /// Sniffs the file at `path`; nil when it is not a recognisable image or cannot be read.
  public static func sniff(path: String) -> ImageInfo? {
    guard let source = FileSource(path: path) else { return nil }
    return sniff(source)
  }

  /// Sniffs an in-memory body; nil when it is not a recognisable image.
  public static func sniff(data: [UInt8]) -> ImageInfo? { sniff(ArraySource(data: data)) }

  /// Sniffs an in-memory body, read in place; nil when it is not a recognisable image.
  public static func sniff(data: Data) -> ImageInfo? { sniff(DataSource(data: data)) }

  static func sniff(_ s: some ByteSource) -> ImageInfo? {
    if s.matches(0, [0xFF, 0xD8, 0xFF]) { return JPEGParser.parse(s) }
    if s.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(s) }
    if s.matches(0, Array("GIF87a".utf8)) || s.matches(0, Array("GIF89a".utf8)) { return gif(s) }
    if s.matches(0, Array("RIFF".utf8)) && s.matches(8, Array("WEBP".utf8)) { return webp(s) }
    if s.matches(4, Array("ftyp".utf8)) { return ISOBMFFParser.parse(s) }
    if s.matches(0, [0x49, 0x49, 0x2A, 0x00]) { return tiff(s, bigEndian: false) }
    if s.matches(0, [0x4D, 0x4D, 0x00, 0x2A]) { return tiff(s, bigEndian: true) }
    if s.matches(0, Array("BM".utf8)) { return bmp(s) }
    if s.matches(0, [0x00, 0x00, 0x01, 0x00]) { return ico(s) }
    if s.matches(0, [0xFF, 0x0A]) { return JXLParser.codestream(s, at: 2) }
    if s.matches(0, [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
      return JXLParser.container(s)
    }
    if s.matches(0, Array("%PDF-".utf8)) { return ImageInfo(format: .pdf) }
    return SVGParser.parse(s)
  }

  private static func png(_ s: some ByteSource) -> ImageInfo? {
    guard s.matches(12, Array("IHDR".utf8)), let w = s.be32(16), let h = s.be32(20) else {
      return nil
    }
    return ImageInfo(format: .png, width: w, height: h)
  }

  private static func gif(_ s: some ByteSource) -> ImageInfo? {
    guard let w = s.le16(6), let h = s.le16(8) else { return nil }
    return ImageInfo(format: .gif, width: w, height: h)
  }

  private static func webp(_ s: some ByteSource) -> ImageInfo? {
    switch s.ascii(12, 4) {
    case "VP8 ":
      guard s.matches(23, [0x9D, 0x01, 0x2A]), let w = s.le16(26), let h = s.le16(28) else {
        return nil
      }
      return ImageInfo(format: .webp, width: w & 0x3FFF, height: h & 0x3FFF)
    case "VP8L":
      guard s.u8(20) == 0x2F, let bits = s.le32(21) else { return nil }
      return ImageInfo(
        format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
    case "VP8X":
      guard let w = s.bytes(at: 24, count: 3), let h = s.bytes(at: 27, count: 3) else { return nil }
      let le24 = { (b: [UInt8]) in Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 }
      return ImageInfo(format: .webp, width: le24(w) + 1, height: le24(h) + 1)
    default:
      return nil
    }
  }

  private static func tiff(_ s: some ByteSource, bigEndian: Bool) -> ImageInfo? {
    let u16 = { (o: Int) in bigEndian ? s.be16(o) : s.le16(o) }
    let u32 = { (o: Int) in bigEndian ? s.be32(o) : s.le32(o) }
    guard let ifd = u32(4), ifd >= 8, let count = u16(ifd), count > 0 else { return nil }
    var width: Int?
    var height: Int?
    for index in 0..<min(count, 4_096) {
      let entry = ifd + 2 + index * 12
      guard let tag = u16(entry), let type = u16(entry + 2) else { return nil }
      guard tag == 256 || tag == 257 else { continue }
      let value = type == 3 ? u16(entry + 8) : type == 4 ? u32(entry + 8) : nil
      if tag == 256 { width = value } else { height = value }
      if width != nil && height != nil { break }
    }
    guard let width, let height else { return nil }
    return ImageInfo(format: .tiff, width: width, height: height)
  }

  private static func bmp(_ s: some ByteSource) -> ImageInfo? {
    guard let header = s.le32(14) else { return nil }
    if header == 12 {
      guard let w = s.le16(18), let h = s.le16(20) else { return nil }
      return ImageInfo(format: .bmp, width: w, height: h)
    }
    guard [16, 40, 52, 56, 64, 108, 124].contains(header),
      let w = s.le32(18), let h = s.le32(22)
    else { return nil }
    let signed = { (v: Int) in Int(Int32(truncatingIfNeeded: v)) }
    return ImageInfo(format: .bmp, width: abs(signed(w)), height: abs(signed(h)))
  }

  private static func ico(_ s: some ByteSource) -> ImageInfo? {
    guard let count = s.le16(4), count > 0, count <= 1_024 else { return nil }
    var best: (Int, Int)?
    for index in 0..<count {
      let entry = 6 + index * 16
      guard let w = s.u8(entry), let h = s.u8(entry + 1), s.u8(entry + 3) == 0,
        let size = s.le32(entry + 8), let offset = s.le32(entry + 12), size > 0,
        offset >= 6 + count * 16
      else { return nil }
      let dims = (w == 0 ? 256 : w, h == 0 ? 256 : h)
      if best.map({ dims.0 * dims.1 > $0.0 * $0.1 }) ?? true { best = dims }
    }
    guard let best else { return nil }
    return ImageInfo(format: .ico, width: best.0, height: best.1)
  }
}
