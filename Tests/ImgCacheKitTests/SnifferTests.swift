import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheSniffer

@Suite("Image sniffing without decoding")
struct SnifferTests {
  @Test("real images of every format: format, width and height")
  func realImages() {
    #expect(Fixtures.images.count >= 20)
    #expect(Set(Fixtures.images.map(\.format)) == Set(ImageFormat.allCases))
    for image in Fixtures.images {
      let info = ImageSniffer.sniff(path: image.path)
      #expect(info?.format == image.format, "\(image.path)")
      #expect(info?.width == image.width, "\(image.path)")
      #expect(info?.height == image.height, "\(image.path)")
    }
  }

  @Test(
    "every truncation of every real image is handled without a crash, and a body cut in its headers is not an image"
  )
  func truncated() {
    for image in Fixtures.images {
      let bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: image.path)))) ?? []
      for length in 0..<min(bytes.count, 600) {
        let info = ImageSniffer.sniff(data: Array(bytes.prefix(length)))
        if let info { #expect(info.format == image.format || info.format == .svg) }
      }
      #expect(ImageSniffer.sniff(data: Array(bytes.prefix(2))) == nil, "\(image.path)")
    }
  }

  @Test("empty, garbage, HTML and text bodies are not images")
  func notImages() {
    #expect(ImageSniffer.sniff(data: []) == nil)
    #expect(
      ImageSniffer.sniff(data: Array("<!DOCTYPE html><html><body>Not found</body></html>".utf8))
        == nil)
    #expect(ImageSniffer.sniff(data: Array("BMW is a car brand, not a bitmap".utf8)) == nil)
    #expect(ImageSniffer.sniff(data: Array("GIF is pronounced how?".utf8)) == nil)
    #expect(ImageSniffer.sniff(data: Array("II want to be TIFF".utf8)) == nil)
    #expect(ImageSniffer.sniff(data: Array("{\"error\": \"nope\"}".utf8)) == nil)
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let length = Int.random(in: 0..<256, using: &generator)
      let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      _ = ImageSniffer.sniff(data: garbage)
    }
  }

  @Test("hostile headers: huge box sizes, endless JPEG fill, giant ICO counts stay bounded")
  func hostile() {
    var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    jpeg += [UInt8](repeating: 0xFF, count: 100_000)
    #expect(ImageSniffer.sniff(data: jpeg) == nil)
    var box: [UInt8] =
      [0, 0, 0, 1] + Array("ftyp".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    box += Array("avif".utf8)
    #expect(ImageSniffer.sniff(data: box) == nil)
    let ico: [UInt8] = [0, 0, 1, 0, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 64)
    #expect(ImageSniffer.sniff(data: ico) == nil)
    var segments: [UInt8] = [0xFF, 0xD8]
    for _ in 0..<10_000 { segments += [0xFF, 0xE1, 0x00, 0x02] }
    #expect(ImageSniffer.sniff(data: segments) == nil)
  }

  @Test("stray bytes between JPEG segments are skipped to the next marker, as libjpeg does")
  func jpegStrayBytes() {
    let jpeg = Fixtures.bytes("base.jpg")
    #expect(jpeg.count > 20 && jpeg[2] == 0xFF)
    // After the first segment (SOI, then FF Ex with its length): stray bytes, a stuffed zero
    // and fill bytes, as in Pillow's photoshop-200dpi-broken.jpg and truncated_app14.jpg.
    let first = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
    for stray: [UInt8] in [[0x00], [0x12, 0x34, 0x56], [0xFF, 0x00, 0x07], [0x01, 0xFF, 0xFF]] {
      var damaged = jpeg
      damaged.insert(contentsOf: stray, at: first)
      let info = ImageSniffer.sniff(data: damaged)
      #expect(info?.format == .jpeg, "\(stray)")
      #expect(info?.width == 37 && info?.height == 21, "\(stray)")
    }
    // Past the bound on what is skipped: not an image, at once.
    var flooded = jpeg
    flooded.insert(
      contentsOf: [UInt8](repeating: 0x20, count: JPEGParser.maxSkipped + 2), at: first)
    #expect(ImageSniffer.sniff(data: flooded) == nil)
  }

  @Test("zero-pixel images are recognised but report no pixels (SDWebImage's 0 pixels)")
  func zeroPixels() {
    var png = Fixtures.bytes("base.png")
    png.replaceSubrange(16..<20, with: [0, 0, 0, 0])
    let info = ImageSniffer.sniff(data: png)
    #expect(info?.format == .png)
    #expect(info?.hasPixels == false)
    let svg = ImageSniffer.sniff(data: Array("<svg width=\"0\" height=\"10\"></svg>".utf8))
    #expect(svg?.hasPixels == false)
  }

  @Test("a JPEG's scans are counted as a byte-by-byte walk counts them, in a file or in memory")
  func scanCounts() throws {
    let directory = TemporaryDirectory()
    var generator = SystemRandomNumberGenerator()
    for round in 0..<40 {
      // Mostly FF and DA, runs of FF, sizes around the 64 KiB read block.
      let size =
        [1, 2, 65_535, 65_536, 65_537, 131_073, 300][round % 7]
        + Int.random(
          in: 0...3, using: &generator)
      let bytes = (0..<size).map { _ -> UInt8 in
        switch UInt8.random(in: 0...9, using: &generator) {
        case 0...2: 0xFF
        case 3...4: 0xDA
        default: UInt8.random(in: 0...255, using: &generator)
        }
      }
      var expected = 0
      for index in bytes.indices.dropFirst() where bytes[index - 1] == 0xFF && bytes[index] == 0xDA
      {
        expected += 1
      }
      let path = directory.url.appendingPathComponent("scans-\(round)").path
      FileManager.default.createFile(atPath: path, contents: Data(bytes))
      #expect(JPEGParser.scanCount(path: path, limit: Int.max - 1) == expected, "size \(size)")
      #expect(JPEGParser.scanCount(bytes: bytes) == expected, "size \(size), in memory")
    }
  }

  @Test("a file's MD5 and SHA-256, read a block at a time, are the digests of its bytes")
  func fileDigests() throws {
    let directory = TemporaryDirectory()
    for size in [0, 1, 16_383, 16_384, 16_385, 300_001] {
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
      let path = directory.url.appendingPathComponent("digest-\(size)").path
      FileManager.default.createFile(atPath: path, contents: Data(bytes))
      #expect(try MD5.hex(ofFileAt: path) == MD5.hex(of: bytes), "size \(size)")
      #expect(try SHA256.hex(ofFileAt: path) == SHA256.hex(of: bytes), "size \(size)")
    }
    #expect(throws: CacheError.self) { try MD5.hex(ofFileAt: directory.path + "/missing") }
  }
}
