import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// The header walk that decides whether a JPEG may take the direct path.
@Suite("A JPEG's layout: size, components, EXIF orientation, ICC profile")
struct JPEGLayoutTests {
  /// SOI, then `segments`, then a SOF0 of 32×16 with `components`, then a SOS.
  func jpeg(_ segments: [UInt8], components: UInt8 = 3) -> [UInt8] {
    [0xFF, 0xD8] + segments + [0xFF, 0xC0, 0, 8 + 3 * components, 8, 0, 16, 0, 32, components]
      + [UInt8](repeating: 1, count: 3 * Int(components)) + [0xFF, 0xDA, 0, 2]
  }

  /// An APP1 Exif segment whose first IFD holds `entries` (tag, type, value) in `order`.
  func exif(_ entries: [(UInt16, UInt16, UInt16)], bigEndian: Bool) -> [UInt8] {
    let u16 = { (v: UInt16) -> [UInt8] in
      bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
    let u32 = { (v: UInt32) -> [UInt8] in
      let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
      return bigEndian ? bytes : bytes.reversed()
    }
    var tiff = Array((bigEndian ? "MM" : "II").utf8) + u16(42) + u32(8) + u16(UInt16(entries.count))
    for (tag, type, value) in entries {
      tiff += u16(tag) + u16(type) + u32(1) + u16(value) + [0, 0]
    }
    tiff += u32(0)
    let body = Array("Exif".utf8) + [0, 0] + tiff
    return [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
  }

  @Test("orientation is read in either byte order, past other tags")
  func orientation() throws {
    for bigEndian in [true, false] {
      let entries: [(UInt16, UInt16, UInt16)] = [(0x010F, 3, 0), (0x0112, 3, 6)]
      let segment = exif(entries, bigEndian: bigEndian)
      let layout = try #require(JPEGParser.layout(data: jpeg(segment)))
      var expected = JPEGLayout(
        width: 32, height: 16, components: 3, orientation: 6, hasProfile: false)
      expected.applicationBytes = segment.count - 4
      #expect(layout == expected)
    }
    #expect(JPEGParser.layout(data: jpeg([]))?.orientation == 1)
    #expect(
      JPEGParser.layout(data: jpeg(exif([(0x010F, 3, 0)], bigEndian: true)))?.orientation == 1)
  }

  @Test("an EXIF it cannot read, or a second one, leaves the orientation unknown")
  func unreadable() {
    #expect(
      JPEGParser.layout(data: jpeg(exif([(0x0112, 3, 9)], bigEndian: true)))?.orientation == nil)
    #expect(
      JPEGParser.layout(data: jpeg(exif([(0x0112, 4, 6)], bigEndian: false)))?.orientation == nil)
    let one = exif([(0x0112, 3, 1)], bigEndian: true)
    #expect(JPEGParser.layout(data: jpeg(one + one))?.orientation == nil)
    var broken = one
    broken[14] = 0x7F  // the first IFD's offset, high byte: far past the segment
    #expect(JPEGParser.layout(data: jpeg(broken))?.orientation == nil)
  }

  @Test("segments after the frame header count; a profile is known by its name alone")
  func afterTheFrame() throws {
    let sof: [UInt8] = [0xFF, 0xC0, 0, 17, 8, 0, 16, 0, 32, 3] + [UInt8](repeating: 1, count: 9)
    let sos: [UInt8] = [0xFF, 0xDA, 0, 2]
    let late = [0xFF, 0xD8] + sof + exif([(0x0112, 3, 6)], bigEndian: true) + sos
    let layout = try #require(JPEGParser.layout(data: late))
    #expect(layout.orientation == 6)
    #expect(layout.applicationBytes == exif([(0x0112, 3, 6)], bigEndian: true).count - 4)
    let icc = Array("ICC_PROFILEx".utf8)
    let named = [0xFF, 0xD8] + sof + [0xFF, 0xE2, 0, UInt8(icc.count + 2)] + icc + sos
    #expect(JPEGParser.layout(data: named)?.hasProfile == true)
    #expect(JPEGParser.layout(data: [0xFF, 0xD8] + sof + sof + sos) == nil)
  }

  @Test("an orientation tag libexif would read otherwise makes it unknown")
  func duplicates() {
    let twice: [(UInt16, UInt16, UInt16)] = [(0x0112, 3, 1), (0x0112, 3, 6)]
    #expect(JPEGParser.layout(data: jpeg(exif(twice, bigEndian: true)))?.orientation == nil)
    var empty = exif([(0x0112, 3, 1), (0x0112, 3, 6)], bigEndian: true)
    empty[4 + 6 + 10 + 7] = 0  // the first entry's count (its low byte): 0 values
    #expect(JPEGParser.layout(data: jpeg(empty))?.orientation == nil)
  }

  @Test("an ICC profile and the components are seen")
  func profileAndComponents() {
    let icc = Array("ICC_PROFILE".utf8) + [0, 1, 1, 0, 0]
    let app2 = [0xFF, 0xE2, 0, UInt8(icc.count + 2)] + icc
    #expect(JPEGParser.layout(data: jpeg(app2))?.hasProfile == true)
    #expect(JPEGParser.layout(data: jpeg([], components: 4))?.components == 4)
    #expect(JPEGParser.layout(data: jpeg([], components: 1))?.components == 1)
    #expect(JPEGParser.layout(data: Array(jpeg([]).prefix(8))) == nil)
  }
}
