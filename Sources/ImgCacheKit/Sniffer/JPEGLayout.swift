/// What a JPEG's header segments say about deriving from it, read without decoding: its size,
/// colour components, EXIF orientation and whether an ICC profile is embedded. The direct JPEG
/// path (docs/design.md, Variants) takes only what these allow.
package struct JPEGLayout: Equatable, Sendable {
  /// The frame's width and height, as stored (before any orientation).
  package var width: Int
  package var height: Int
  /// The frame's colour components: 1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK.
  package var components: Int
  /// The EXIF orientation (1 upright: also when there is no EXIF or no tag); nil when an EXIF
  /// segment is there but cannot be read, or there are two.
  package var orientation: Int?
  /// Whether an APP2 `ICC_PROFILE` segment is there.
  package var hasProfile: Bool
  /// The bytes of every APP1 and APP2 segment before the first scan, without their length
  /// fields: what libjpeg saves of them, for the decoder to check it reads the same file.
  package var applicationBytes = 0

  /// A layout of these values.
  package init(width: Int, height: Int, components: Int, orientation: Int?, hasProfile: Bool) {
    (self.width, self.height, self.components) = (width, height, components)
    (self.orientation, self.hasProfile) = (orientation, hasProfile)
  }
}

extension JPEGParser {
  /// The layout of the JPEG file at `path`; nil when it is not a JPEG whose segments can be
  /// walked to its frame header.
  package static func layout(path: String) -> JPEGLayout? {
    guard let source = FileSource(path: path), source.matches(0, [0xFF, 0xD8, 0xFF]) else {
      return nil
    }
    return layout(source)
  }

  /// The layout of the JPEG `data`; nil as for a file.
  package static func layout(data: [UInt8]) -> JPEGLayout? {
    let source = ArraySource(data: data)
    return source.matches(0, [0xFF, 0xD8, 0xFF]) ? layout(source) : nil
  }

  /// Walks every segment up to the first scan, as libjpeg reads the header (an EXIF or ICC
  /// segment after the frame header counts too); nil with a second frame header.
  static func layout(_ s: some ByteSource) -> JPEGLayout? {
    var layout = JPEGLayout(width: 0, height: 0, components: 0, orientation: 1, hasProfile: false)
    var (exifSeen, frameSeen) = (false, false)
    let end = walk(s) { marker, segment, length in
      if frameMarkers.contains(marker) {
        guard !frameSeen, length >= 8, let height = s.be16(segment + 3),
          let width = s.be16(segment + 5), let components = s.u8(segment + 7)
        else { return false }
        (layout.width, layout.height, layout.components) = (width, height, components)
        frameSeen = true
      }
      if marker == 0xE1 || marker == 0xE2 { layout.applicationBytes += length - 2 }
      // libvips takes an ICC profile by the name alone, without its NUL.
      if marker == 0xE2, s.matches(segment + 2, Array("ICC_PROFILE".utf8)) {
        layout.hasProfile = true
      }
      if marker == 0xE1, s.matches(segment + 2, Array("Exif\0\0".utf8)) {
        layout.orientation =
          exifSeen ? nil : exifOrientation(s, tiff: segment + 8, end: segment + length)
        exifSeen = true
      }
      return true
    }
    return end == .scan && frameSeen ? layout : nil
  }

  /// The orientation tag (0x0112) of the first IFD of the TIFF structure at `tiff`, which ends
  /// at `end`: 1 when there is none; nil when the structure cannot be read or the value is not
  /// 1 to 8.
  static func exifOrientation(_ s: some ByteSource, tiff: Int, end: Int) -> Int? {
    let bigEndian: Bool
    if s.matches(tiff, Array("MM".utf8)) {
      bigEndian = true
    } else if s.matches(tiff, Array("II".utf8)) {
      bigEndian = false
    } else {
      return nil
    }
    let u16 = { (at: Int) -> Int? in at + 2 <= end ? (bigEndian ? s.be16(at) : s.le16(at)) : nil }
    let u32 = { (at: Int) -> Int? in at + 4 <= end ? (bigEndian ? s.be32(at) : s.le32(at)) : nil }
    guard u16(tiff + 2) == 42, let offset = u32(tiff + 4), offset >= 8, offset < end - tiff,
      let count = u16(tiff + offset)
    else { return nil }
    // Every entry read: a second orientation tag, or one libexif would drop (not one SHORT),
    // makes it unknown.
    var orientation: Int?
    for entry in 0..<count {
      let at = tiff + offset + 2 + entry * 12
      guard let tag = u16(at), let type = u16(at + 2), let values = u32(at + 4), at + 12 <= end
      else { return nil }
      guard tag == 0x0112 else { continue }
      guard orientation == nil, type == 3, values == 1, let value = u16(at + 8),
        (1...8).contains(value)
      else { return nil }
      orientation = value
    }
    return orientation ?? 1
  }
}
