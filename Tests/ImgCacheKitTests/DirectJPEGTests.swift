import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// The direct JPEG path (libjpeg-turbo and libyuv) against libvips' thumbnail: the same sizes
/// and crops, pixels close, and every image it is not for left to libvips untouched.
@Suite("The direct JPEG path: libvips' sizes and crops, and libvips for everything else")
struct DirectJPEGTests {
  let fixtures = VariantFixtures()

  /// Derives `preset` of `original` by the direct path when it may (`direct`), else by libvips.
  func derive(_ original: String, _ preset: String, direct: Bool) throws -> DerivedVariant {
    var deriver = Deriver()
    deriver.usesDirectJPEG = direct
    return try deriver.derive(
      original: original, spec: try VariantSpec.parse(preset: preset),
      into: fixtures.output.path)
  }

  /// ImageMagick's mean absolute difference of two images of one size, 0 (same) to 1.
  func difference(_ one: String, _ other: String) -> Double? {
    let result = run("/usr/bin/compare", ["-metric", "MAE", one, other, "null:"])
    guard let open = result.stderr.firstIndex(of: "("),
      let close = result.stderr.firstIndex(of: ")")
    else { return nil }
    return Double(result.stderr[result.stderr.index(after: open)..<close])
  }

  @Test(
    "sizes and crops are libvips' for every size and geometry, pixels within 4%",
    arguments: [(640, 480), (401, 299), (1999, 1333), (37, 53), (3000, 170), (96, 1024)])
  func sameAsLibvips(width: Int, height: Int) throws {
    let original = try fixtures.convert(
      "p\(width)x\(height).jpg",
      ["-size", "\(width)x\(height)", "plasma:red-blue", "-seed", "3", "-quality", "85"])
    let presets = [
      "256x256^", "128x128^", "200", "100x", "x100", "300x100^ gravity=north",
      "100x200^ gravity=east", "50x50^ gravity=southwest", "200x100!", "800x800 enlarge",
      "640x640^ enlarge", "300x300>", "jpeg q=92", "64x64^ gravity=northeast",
    ]
    for preset in presets {
      let spec = try VariantSpec.parse(preset: preset)
      let plan = DirectJPEGPlan(
        plan: ThumbnailPlan(spec: spec, originalWidth: width, originalHeight: height),
        box: spec.geometry, width: width, height: height)
      let direct = try derive(original, preset, direct: true)
      let vips = try derive(original, preset, direct: false)
      #expect(
        (direct.width, direct.height) == (vips.width, vips.height),
        "\(width)x\(height) \(preset)")
      let identified = fixtures.identify(direct.path)
      #expect(identified?.width == vips.width && identified?.height == vips.height, "\(preset)")
      #expect(direct.madeDirectly == (plan != nil) && !vips.madeDirectly, "\(preset)")
      let difference = difference(direct.path, vips.path)
      #expect(
        difference.map { $0 < 0.04 } == true, "\(width)x\(height) \(preset): \(difference ?? -1)")
    }
  }

  @Test("a cover crop of a JPEG keeps the side its gravity names")
  func gravity() throws {
    let tall = try fixtures.topRedBottomBlue("tall.jpg", width: 100, height: 200)
    let north = try derive(tall, "50x50^ gravity=north", direct: true)
    let south = try derive(tall, "50x50^ gravity=south", direct: true)
    #expect(VariantFixtures.isRed(fixtures.colour(north.path, 50, 50, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(south.path, 50, 50, 0, 0)))
    let wide = try fixtures.leftRedRightBlue("wide.jpg", width: 200, height: 100)
    let west = try derive(wide, "50x50^ gravity=west", direct: true)
    let east = try derive(wide, "50x50^ gravity=southeast", direct: true)
    #expect(VariantFixtures.isRed(fixtures.colour(west.path, 50, 50, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(east.path, 50, 50, 0, 0)))
    let centre = try derive(tall, "50x50^", direct: true)
    #expect(VariantFixtures.isRed(fixtures.colour(centre.path, 50, 10, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(centre.path, 50, 10, 0, 40)))
  }

  @Test("a grey JPEG stays grey, one band")
  func grey() throws {
    let original = try fixtures.convert(
      "grey.jpg", ["-size", "300x200", "gradient:", "-colorspace", "Gray", "-quality", "90"])
    let direct = try derive(original, "100x100^", direct: true)
    let vips = try derive(original, "100x100^", direct: false)
    #expect((direct.width, direct.height) == (100, 100))
    #expect(direct.madeDirectly && !vips.madeDirectly)
    let colourspace = run(
      "/usr/bin/identify", ["-format", "%[colorspace] %[channels]", direct.path])
    #expect(colourspace.stdout.hasPrefix("Gray"))
  }

  @Test(
    "an image the direct path is not for is libvips' to the byte",
    arguments: [
      ("orientation", "100x100^"), ("profile", "100x100^"), ("cmyk", "100x100^"),
      ("plain", "100x100^ keep-metadata"), ("plain", "100x100^ gravity=attention"),
      ("plain", "webp"), ("truncated", "100x100^"),
    ])
  func declined(kind: String, preset: String) throws {
    let original = try self.original(kind)
    let direct = Result { try derive(original, preset, direct: true) }
    let vips = Result { try derive(original, preset, direct: false) }
    switch (direct, vips) {
    case (.success(let direct), .success(let vips)):
      #expect(!direct.madeDirectly, "\(kind) \(preset)")
      #expect(fixtures.bytes(direct.path) == fixtures.bytes(vips.path), "\(kind) \(preset)")
    case (.failure(let direct), .failure(let vips)):
      // (libvips' error buffer is the process's: a test beside may add to its message.)
      #expect((direct as? CacheError)?.kind == (vips as? CacheError)?.kind)
    default:
      Issue.record("\(kind) \(preset): direct \(direct), libvips \(vips)")
    }
  }

  /// An original of `kind` the direct path declines.
  func original(_ kind: String) throws -> String {
    switch kind {
    case "orientation": return try fixtures.oriented(6, width: 300, height: 200)
    case "profile":
      // An APP2 ICC_PROFILE segment (libvips then converts, or falls back when it cannot).
      let plain = try fixtures.convert("plain-p.jpg", ["-size", "300x200", "plasma:"])
      var bytes = fixtures.bytes(plain)
      let profile = Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](repeating: 0, count: 128)
      let length = profile.count + 2
      bytes.insert(
        contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + profile, at: 2)
      return try fixtures.directory.write("profile.jpg", bytes)
    case "cmyk":
      return try fixtures.convert(
        "cmyk.jpg", ["-size", "300x200", "plasma:", "-colorspace", "CMYK"])
    case "truncated":
      let plain = try fixtures.convert("whole.jpg", ["-size", "300x200", "plasma:"])
      let bytes = fixtures.bytes(plain)
      return try fixtures.directory.write("truncated.jpg", Array(bytes.prefix(bytes.count * 2 / 3)))
    default: return try fixtures.convert("plain.jpg", ["-size", "300x200", "plasma:"])
    }
  }

  @Test("a spent budget stops the direct path between rows: an error, nothing left behind")
  func budget() throws {
    let original = try fixtures.convert("big.jpg", ["-size", "2000x1500", "plasma:"])
    let failure = fixtures.failure(
      original, "1900x1400^", limits: DerivationLimits(timeout: 0.000_001))
    #expect(failure?.kind == .cannotDerive)
    #expect(failure?.message.contains("derive_timeout") == true)
    #expect(fixtures.leftovers.isEmpty)
  }

  @Test(
    "the plan shrinks by the DCT as far as the resized size allows",
    arguments: [
      (640, 480, "256x256^", 1, 341, 256), (640, 480, "128x128^", 2, 171, 128),
      (4000, 3000, "256x256^", 8, 341, 256), (4000, 3000, "400", 8, 400, 300),
      (400, 300, "800x800 enlarge", 1, 800, 600),
      // Over a 2x step after the DCT's 1/8: libvips' way.
      (4000, 3000, "100", 0, 0, 0), (1000, 100, "100x100!", 0, 0, 0),
    ])
  func plan(
    width: Int, height: Int, preset: String, shrink: Int, resizedWidth: Int, resizedHeight: Int
  ) throws {
    let spec = try VariantSpec.parse(preset: preset)
    let thumbnail = ThumbnailPlan(spec: spec, originalWidth: width, originalHeight: height)
    let plan = DirectJPEGPlan(plan: thumbnail, box: spec.geometry, width: width, height: height)
    let found = plan.map { ($0.shrink, $0.width, $0.height) } ?? (0, 0, 0)
    #expect(found == (shrink, resizedWidth, resizedHeight))
    let interest = try VariantSpec.parse(preset: "100x100^ gravity=entropy")
    #expect(
      DirectJPEGPlan(
        plan: ThumbnailPlan(spec: interest, originalWidth: width, originalHeight: height),
        box: interest.geometry, width: width, height: height) == nil)
  }
}

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
