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
  func derive(
    _ original: String, _ preset: String, direct: Bool, planar: Bool = true
  ) throws -> DerivedVariant {
    var deriver = Deriver()
    deriver.usesDirectJPEG = direct
    deriver.usesPlanarJPEG = planar
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

  @Test(
    "a 4:2:0 JPEG resized from its whole size stays in YCbCr planes, as close to libvips",
    arguments: [(640, 480), (402, 298), (2000, 1334), (38, 54), (401, 299)])
  func planar(width: Int, height: Int) throws {
    let sampled = try fixtures.convert(
      "s\(width)x\(height).jpg",
      ["-size", "\(width)x\(height)", "plasma:green-yellow", "-seed", "5", "-quality", "85"])
    let full = try fixtures.convert(
      "f\(width)x\(height).jpg",
      [
        "-size", "\(width)x\(height)", "plasma:", "-seed", "5", "-quality", "85",
        "-sampling-factor", "1x1",
      ])
    // Odd and even crop origins, DCT shrinks, a crop of the whole, an enlargement.
    let presets = [
      "256x256^", "127x33^", "100x", "50x51^ gravity=southeast", "800x800 enlarge", "1200x",
      "300x300^ gravity=north",
    ]
    var planarSeen = false
    for preset in presets {
      let planar = try derive(sampled, preset, direct: true)
      let interleaved = try derive(sampled, preset, direct: true, planar: false)
      let vips = try derive(sampled, preset, direct: false)
      let named = "\(width)x\(height) \(preset)"
      #expect(planar.madeDirectly == interleaved.madeDirectly, "\(named)")
      guard planar.madeDirectly else { continue }
      // Planar when decoded whole and resized, the crop from even pixels; else by BGRX.
      let spec = try VariantSpec.parse(preset: preset)
      let plan = try #require(
        DirectJPEGPlan(
          plan: ThumbnailPlan(spec: spec, originalWidth: width, originalHeight: height),
          box: spec.geometry, width: width, height: height))
      let way =
        width % 2 == 0 && height % 2 == 0 && plan.shrink == 1
        && (plan.width, plan.height) != (width, height)
        && plan.crop.left % 2 == 0 && plan.crop.top % 2 == 0
      #expect(planar.madePlanar == way && !interleaved.madePlanar, "\(named)")
      planarSeen = planarSeen || way
      #expect((planar.width, planar.height) == (vips.width, vips.height), "\(named)")
      let near = try #require(difference(planar.path, vips.path), "\(named)")
      let far = try #require(difference(interleaved.path, vips.path), "\(named)")
      #expect(near < far + 0.005, "\(named): planar \(near), BGRX \(far)")
    }
    // An odd side has a chroma sample covering one pixel: the BGRX way.
    let even = width % 2 == 0 && height % 2 == 0
    #expect(planarSeen == even, "\(width)x\(height): planar \(planarSeen)")
    let enlarged = "\(width * 5 / 4)x enlarge"
    let sampledWay = try derive(sampled, enlarged, direct: true)
    #expect(sampledWay.madeDirectly && sampledWay.madePlanar == even, "\(width)x\(height)")
    for (original, preset) in [(full, enlarged), (sampled, enlarged + " jpeg q=92")] {
      let derived = try derive(original, preset, direct: true)
      #expect(derived.madeDirectly && !derived.madePlanar, "\(width)x\(height) \(preset)")
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
      ("plain", "webp"), ("truncated", "100x100^"), ("truncated420", "200x120^"),
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
    case "truncated", "truncated420":
      // (At quality 85 ImageMagick writes 4:2:0, which the planar way would take.)
      let plain = try fixtures.convert(
        "whole-\(kind).jpg",
        ["-size", "300x200", "plasma:"] + (kind == "truncated" ? [] : ["-quality", "85"]))
      let bytes = fixtures.bytes(plain)
      return try fixtures.directory.write(
        "\(kind).jpg", Array(bytes.prefix(bytes.count * 2 / 3)))
    default: return try fixtures.convert("plain.jpg", ["-size", "300x200", "plasma:"])
    }
  }

  @Test(
    "a spent budget stops the direct path between rows: an error, nothing left behind",
    arguments: ["92", "85"])  // 4:4:4 (the BGRX way) and 4:2:0 (the planar way)
  func budget(quality: String) throws {
    let original = try fixtures.convert(
      "big-\(quality).jpg", ["-size", "2000x1500", "plasma:", "-quality", quality])
    let failure = fixtures.failure(
      original, "1900x1400^", limits: DerivationLimits(timeout: 0.000_001))
    #expect(failure?.kind == .cannotDerive)
    #expect(failure?.message.contains("derive_timeout") == true)
    #expect(fixtures.leftovers.isEmpty)
    // Without the budget, the way the stopped derivation took.
    let made = try derive(original, "1900x1400^", direct: true)
    #expect(made.madeDirectly && made.madePlanar == (quality == "85"))
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
