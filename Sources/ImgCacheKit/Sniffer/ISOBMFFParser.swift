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

  package static func parse(_ s: some ByteSource) -> ImageInfo? {
    guard let ftyp = boxes(in: s, from: 0, to: s.length, limit: 1).first, ftyp.type == "ftyp",
      let format = format(brandsOf: ftyp, in: s)
    else { return nil }
    let size = primarySize(in: s)
    return ImageInfo(format: format, width: size?.0, height: size?.1)
  }

  /// The `ispe` of the primary item (`pitm`, through `ipma`); else the largest `ispe`.
  private static func primarySize(in s: some ByteSource) -> (Int, Int)? {
    guard
      let meta = boxes(in: s, from: 0, to: s.length, limit: 64).first(where: { $0.type == "meta" })
    else { return nil }
    let inMeta = boxes(in: s, from: meta.start + 4, to: meta.end, limit: 64)
    guard let iprp = inMeta.first(where: { $0.type == "iprp" }) else { return nil }
    let inIprp = boxes(in: s, from: iprp.start, to: iprp.end, limit: 64)
    guard let ipco = inIprp.first(where: { $0.type == "ipco" }) else { return nil }
    let properties = boxes(in: s, from: ipco.start, to: ipco.end, limit: 1_024)
    var sizes = [Int: (Int, Int)]()
    for (index, box) in properties.enumerated() where box.type == "ispe" {
      guard let w = s.be32(box.start + 4), let h = s.be32(box.start + 8) else { return nil }
      sizes[index + 1] = (w, h)
    }
    if let pitm = inMeta.first(where: { $0.type == "pitm" }),
      let primary = s.u8(pitm.start) == 0 ? s.be16(pitm.start + 4) : s.be32(pitm.start + 4),
      let ipma = inIprp.first(where: { $0.type == "ipma" }),
      let index = associations(of: primary, in: ipma, s).first(where: { sizes[$0] != nil })
    {
      return sizes[index]
    }
    return sizes.values.max { Double($0.0) * Double($0.1) < Double($1.0) * Double($1.1) }
  }

  /// The 1-based `ipco` indices associated with `item` in an `ipma` box.
  private static func associations(of item: Int, in ipma: Box, _ s: some ByteSource) -> [Int] {
    guard let version = s.u8(ipma.start), let flags = s.u8(ipma.start + 3),
      let count = s.be32(ipma.start + 4)
    else { return [] }
    var offset = ipma.start + 8
    for _ in 0..<min(count, 65_536) {
      guard let id = version < 1 ? s.be16(offset) : s.be32(offset) else { return [] }
      offset += version < 1 ? 2 : 4
      guard let n = s.u8(offset) else { return [] }
      offset += 1
      let width = flags & 1 == 1 ? 2 : 1
      var indices = [Int]()
      for _ in 0..<n {
        guard let raw = width == 2 ? s.be16(offset) : s.u8(offset), offset < ipma.end else {
          return []
        }
        indices.append(raw & (width == 2 ? 0x7FFF : 0x7F))
        offset += width
      }
      if id == item { return indices }
    }
    return []
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
