/// JPEG: walks the marker segments to the first start-of-frame.
enum JPEGParser {
  /// SOF markers that carry the frame size (C4 DHT, C8 JPG and CC DAC are not frames).
  private static let frameMarkers: Set<Int> = [
    0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF,
  ]

  static func parse(_ s: some ByteSource) -> ImageInfo? {
    var position = 2
    for _ in 0..<4_096 {
      guard s.u8(position) == 0xFF else { return nil }
      var markerAt = position + 1
      var padding = 0
      while s.u8(markerAt) == 0xFF && padding < 64 {
        markerAt += 1
        padding += 1
      }
      guard let marker = s.u8(markerAt) else { return nil }
      let segment = markerAt + 1
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        position = segment
        continue
      }
      if marker == 0xD9 || marker == 0xDA { return nil }
      guard let length = s.be16(segment), length >= 2 else { return nil }
      if frameMarkers.contains(marker) {
        guard length >= 7, let h = s.be16(segment + 3), let w = s.be16(segment + 5) else {
          return nil
        }
        return ImageInfo(format: .jpeg, width: w, height: h)
      }
      position = segment + length
    }
    return nil
  }
}
