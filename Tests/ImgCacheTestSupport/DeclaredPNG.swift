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
