/// HEIC, HEIF and AVIF: the `ftyp` brands, then the `ispe` properties under `meta/iprp/ipco`.
enum ISOBMFFParser {
  private static let avifBrands: Set<String> = ["avif", "avis"]
  private static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis"]
  private static let heifBrands: Set<String> = ["mif1", "msf1"]

  /// A box: its type and the range of its payload.
  struct Box {
    var type: String
    var start: Int
    var end: Int
  }

  static func parse(_ s: some ByteSource) -> ImageInfo? {
    guard let ftyp = boxes(in: s, from: 0, to: s.length, limit: 1).first, ftyp.type == "ftyp",
      let format = format(brandsOf: ftyp, in: s)
    else { return nil }
    var best: (Int, Int)?
    if let meta = boxes(in: s, from: 0, to: s.length, limit: 64).first(where: { $0.type == "meta" }),
      let iprp = boxes(in: s, from: meta.start + 4, to: meta.end, limit: 64)
        .first(where: { $0.type == "iprp" }),
      let ipco = boxes(in: s, from: iprp.start, to: iprp.end, limit: 64)
        .first(where: { $0.type == "ipco" })
    {
      for ispe in boxes(in: s, from: ipco.start, to: ipco.end, limit: 1_024) where ispe.type == "ispe" {
        guard let w = s.be32(ispe.start + 4), let h = s.be32(ispe.start + 8) else { return nil }
        if best.map({ Double(w) * Double(h) > Double($0.0) * Double($0.1) }) ?? true { best = (w, h) }
      }
    }
    return ImageInfo(format: format, width: best?.0, height: best?.1)
  }

  private static func format(brandsOf ftyp: Box, in s: some ByteSource) -> ImageFormat? {
    var brands = [String]()
    if let major = s.ascii(ftyp.start, 4) { brands.append(major) }
    var offset = ftyp.start + 8
    while offset + 4 <= ftyp.end, brands.count < 64, let brand = s.ascii(offset, 4) {
      brands.append(brand)
      offset += 4
    }
    if brands.contains(where: avifBrands.contains) { return .avif }
    if brands.contains(where: heicBrands.contains) { return .heic }
    if brands.contains(where: heifBrands.contains) { return .heif }
    return nil
  }

  /// The boxes between `from` and `to`, at most `limit`; stops at the first malformed one.
  static func boxes(in s: some ByteSource, from: Int, to: Int, limit: Int) -> [Box] {
    var result = [Box]()
    var offset = from
    while result.count < limit, offset + 8 <= to, let size32 = s.be32(offset),
      let type = s.ascii(offset + 4, 4)
    {
      var header = 8
      var size = size32
      if size32 == 1 {
        guard let large = s.be64(offset + 8), large >= 16 else { break }
        size = large
        header = 16
      } else if size32 == 0 {
        size = to - offset
      }
      guard size >= header, size <= to - offset else { break }
      result.append(Box(type: type, start: offset + header, end: offset + size))
      offset += size
    }
    return result
  }
}
