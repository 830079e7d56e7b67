import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

@Suite("Deriving variants from hostile originals: limits, blocked formats, damage")
struct VariantSafetyTests {
  let fixtures = VariantFixtures()

  /// A valid PNG header declaring `width`×`height` pixels, with a few bytes of IDAT.
  func declaredPNG(width: UInt32, height: UInt32) throws -> String {
    try fixtures.directory.write(
      "bomb-\(width)x\(height).png", ImgCacheTestSupport.declaredPNG(width: width, height: height))
  }

  @Test("a small PNG declaring 60,000 x 60,000 is refused at once, before any decoding")
  func decompressionBomb() throws {
    let bomb = try declaredPNG(width: 60_000, height: 60_000)
    #expect(fixtures.bytes(bomb).count < 100)
    #expect(ImageSniffer.sniff(path: bomb)?.width == 60_000)
    let start = Date()
    let error = fixtures.failure(bomb, "320x320^ webp")
    #expect(Date().timeIntervalSince(start) < 0.5)
    #expect(error?.kind == .tooLarge)
    #expect(error?.message.contains("60000x60000") == true)
    #expect(error?.message.contains("max_pixels") == true)
    #expect(fixtures.leftovers.isEmpty)
    // Under the limit, the same bytes reach libvips, which finds no pixels in them.
    let small = try declaredPNG(width: 100, height: 100)
    #expect(fixtures.failure(small, "50")?.kind == .cannotDerive)
    #expect(fixtures.leftovers.isEmpty)
  }

  @Test("the pixel limit is the caller's: an image just over it is refused, just under it is not")
  func pixelLimit() throws {
    let photo = try fixtures.photo()
    let over = fixtures.failure(photo, "100", limits: DerivationLimits(maxPixels: 119_999))
    #expect(over?.kind == .tooLarge)
    #expect(fixtures.failure(photo, "100", limits: DerivationLimits(maxPixels: 120_000)) == nil)
    let huge = try declaredPNG(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)
    #expect(fixtures.failure(huge, "100")?.kind == .tooLarge)
  }

  @Test("with animated, frames are counted against max_frames and max_pixels")
  func frameLimit() throws {
    let gif = try fixtures.convert(
      "frames.gif", ["-delay", "10", "-size", "100x100", "xc:red", "xc:lime", "xc:blue"])
    let frames = fixtures.failure(gif, "50 animated", limits: DerivationLimits(maxFrames: 2))
    #expect(frames?.kind == .tooLarge)
    #expect(frames?.message.contains("3 frames") == true)
    #expect(frames?.message.contains("max_frames") == true)
    let pixels = fixtures.failure(gif, "50 animated", limits: DerivationLimits(maxPixels: 25_000))
    #expect(pixels?.kind == .tooLarge)
    // The first frame alone is within both limits.
    #expect(
      fixtures.failure(gif, "50", limits: DerivationLimits(maxPixels: 10_000, maxFrames: 2)) == nil)
    let crop = fixtures.failure(gif, "50x50^ animated")
    #expect(crop?.kind == .cannotDerive)
    #expect(fixtures.leftovers.count == 1)
  }

  @Test(
    "SVG, PDF, JPEG XL, BMP and ICO originals cannot be derived from, said clearly",
    arguments: [
      ("base.svg", "SVG"), ("base.pdf", "PDF"), ("base.jxl", "JPEG XL"), ("base.bmp", "BMP"),
      ("base.ico", "ICO"),
    ])
  func refusedFormats(name: String, label: String) {
    let error = fixtures.failure(Fixtures.image(name).path, "20 png")
    #expect(error?.kind == .cannotDerive)
    #expect(error?.message.contains(label) == true)
    #expect(fixtures.leftovers.isEmpty)
  }

  @Test("a truncated JPEG is refused and leaves no file behind")
  func truncatedJPEG() throws {
    let photo = try fixtures.photo("big.jpg")
    let bytes = fixtures.bytes(photo)
    let cut = try fixtures.directory.write("cut.jpg", Array(bytes.prefix(bytes.count / 2)))
    #expect(ImageSniffer.sniff(path: cut)?.width == 400)
    for preset in ["100", "100x100^ gravity=south webp", "png", "400x300 enlarge avif"] {
      let error = fixtures.failure(cut, preset)
      #expect(error?.kind == .cannotDerive, "\(preset)")
      #expect(error?.message.contains("\n") == false)
      #expect(fixtures.leftovers.isEmpty, "\(preset)")
    }
  }

  @Test("garbage and a file that is not there are refused, nothing left behind")
  func notImages() throws {
    let text = try fixtures.directory.write("notes.jpg", Array("hello, not an image".utf8))
    #expect(fixtures.failure(text, "100")?.kind == .cannotDerive)
    #expect(fixtures.failure(fixtures.directory.path + "/absent.jpg", "100")?.kind == .cannotDerive)
    var png = fixtures.bytes(try fixtures.convert("ok.png", ["-size", "40x30", "xc:red"]))
    png.replaceSubrange(40..<png.count - 12, with: [UInt8](repeating: 0x41, count: 20))
    let damaged = try fixtures.directory.write("damaged.png", png)
    #expect(fixtures.failure(damaged, "20")?.kind == .cannotDerive)
    #expect(fixtures.leftovers.isEmpty)
  }

  @Test("a directory that cannot be written to is a local I/O error")
  func unwritableDirectory() throws {
    let photo = try fixtures.photo()
    let spec = try VariantSpec.parse(preset: "100")
    #expect {
      _ = try Deriver().derive(original: photo, spec: spec, into: fixtures.directory.path + "/none")
    } throws: { ($0 as? CacheError)?.kind == .localIO }
  }
}
