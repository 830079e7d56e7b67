/// A PNG of under 100 bytes whose header declares `width`×`height` pixels (a decompression
/// bomb when large), with a few bytes of valid IDAT: what the variant safety tests feed.
public func declaredPNG(width: UInt32, height: UInt32) -> [UInt8] {
  func bigEndian32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8((value >> (24 - 8 * UInt32($0))) & 0xFF) }
  }
  func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
    }
    return ~crc
  }
  func chunk(_ body: [UInt8]) -> [UInt8] {
    bigEndian32(UInt32(body.count - 4)) + body + bigEndian32(crc32(body))
  }
  let ihdr = Array("IHDR".utf8) + bigEndian32(width) + bigEndian32(height) + [8, 2, 0, 0, 0]
  let idat = Array("IDAT".utf8) + [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
  return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk(ihdr) + chunk(idat)
    + chunk(Array("IEND".utf8))
}

/// The progressive JPEG `jpeg` with `extraScans` more scans before its end: copies of one of
/// its AC scans that starts a band (with the Huffman tables in effect for it), re-coding the
/// same coefficients with no refinement, so a decoder accepts each without a warning and makes
/// a whole pass over every block for it (a CPU bomb: thousands of scans, one small file). Nil
/// when `jpeg` has no such scan.
public func progressiveJPEG(_ jpeg: [UInt8], extraScans: Int) -> [UInt8]? {
  var position = 2
  var before = [UInt8]()
  var candidates = [(tables: [UInt8], scan: [UInt8])]()
  while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
    let marker = jpeg[position + 1]
    if marker == 0xD9 { break }
    let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
    guard marker == 0xDA else {
      // The Huffman tables (and restart interval) a scan after them uses.
      if marker == 0xC4 || marker == 0xDD {
        before += jpeg[position..<min(jpeg.count, position + 2 + length)]
      }
      position += 2 + length
      continue
    }
    var end = position + 2 + length
    while end + 1 < jpeg.count
      && !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1]))
    {
      end += 1
    }
    var scan = Array(jpeg[position..<end])
    let parameters = 5 + 2 * Int(scan[4])
    if parameters + 2 < scan.count, scan[parameters] >= 1, scan[parameters + 2] >> 4 == 0 {
      scan[parameters + 2] = 0  // Ah = 0, Al = 0: a band coded whole, again and again
      candidates.append((before, scan))
    }
    before = []
    position = end
  }
  guard let pick = candidates.min(by: { $0.scan.count < $1.scan.count }), position <= jpeg.count
  else { return nil }
  var bomb = Array(jpeg[0..<position]) + pick.tables
  for _ in 0..<extraScans { bomb += pick.scan }
  return bomb + [0xFF, 0xD9]
}
