import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheKit

@Suite("Deriving variants with libvips: sizes, crops, formats, orientation, metadata")
struct VariantDeriverTests {
  let fixtures = VariantFixtures()

  @Test(
    "each geometry form gives its size, read back by the sniffer and by identify",
    arguments: [
      ("200", 200, 150), ("100x", 100, 75), ("x100", 133, 100), ("200x200", 200, 150),
      ("200x200>", 200, 150), ("200x200^", 200, 200), ("200x100!", 200, 100),
      ("300x100^ gravity=north", 300, 100), ("100x200^ gravity=east", 100, 200),
      ("100x200^ gravity=attention", 100, 200), ("png", 400, 300),
    ])
  func geometry(preset: String, width: Int, height: Int) throws {
    let variant = try fixtures.derive(try fixtures.photo(), preset)
    #expect(variant.width == width && variant.height == height)
    let sniffed = ImageSniffer.sniff(path: variant.path)
    #expect(sniffed?.width == width && sniffed?.height == height)
    let identified = fixtures.identify(variant.path)
    #expect(identified?.width == width && identified?.height == height)
    #expect(variant.size == Int64(fixtures.bytes(variant.path).count))
    #expect(variant.path.hasPrefix(fixtures.output.path + "/derive-"))
  }

  @Test(
    "nothing is enlarged unless enlarge says so",
    arguments: [
      ("800x800", 400, 300), ("800x800 enlarge", 800, 600), ("800", 400, 300),
      ("800x800^", 400, 300), ("800x800^ enlarge", 800, 800), ("800x100!", 400, 100),
      ("800x100! enlarge", 800, 100), ("800x800^ gravity=south", 400, 300),
      ("800x200^ gravity=south enlarge", 800, 200),
    ])
  func noEnlargement(preset: String, width: Int, height: Int) throws {
    let variant = try fixtures.derive(try fixtures.photo(), preset)
    #expect((variant.width, variant.height) == (width, height))
    let identified = fixtures.identify(variant.path)
    #expect(identified?.width == width && identified?.height == height)
  }

  @Test("a cover crop keeps the side its gravity names")
  func gravity() throws {
    let tall = try fixtures.topRedBottomBlue("tall.png", width: 100, height: 200)
    let north = try fixtures.derive(tall, "50x50^ gravity=north")
    let south = try fixtures.derive(tall, "50x50^ gravity=south")
    #expect(VariantFixtures.isRed(fixtures.colour(north.path, 50, 50, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(south.path, 50, 50, 0, 0)))
    let northwest = try fixtures.derive(tall, "50x50^ gravity=northwest")
    #expect(VariantFixtures.isRed(fixtures.colour(northwest.path, 50, 50, 0, 0)))
    let wide = try fixtures.leftRedRightBlue("wide.png", width: 200, height: 100)
    let west = try fixtures.derive(wide, "50x50^ gravity=west")
    let east = try fixtures.derive(wide, "50x50^ gravity=southeast")
    #expect(VariantFixtures.isRed(fixtures.colour(west.path, 50, 50, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(east.path, 50, 50, 0, 0)))
    // The centre straddles both halves.
    let centre = try fixtures.derive(tall, "50x50^")
    #expect(VariantFixtures.isRed(fixtures.colour(centre.path, 50, 10, 0, 0)))
    #expect(VariantFixtures.isBlue(fixtures.colour(centre.path, 50, 10, 0, 40)))
  }

  @Test(
    "every output format is written with its own signature",
    arguments: [
      ("jpeg", ImageFormat.jpeg, [0xFF, 0xD8, 0xFF], "JPEG"),
      ("png", .png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG"),
      ("webp", .webp, Array("RIFF".utf8), "WEBP"), ("avif", .avif, [], "HEIC"),
      ("gif", .gif, Array("GIF89a".utf8), "GIF"),
    ] as [(String, ImageFormat, [UInt8], String)])
  func formats(name: String, format: ImageFormat, signature: [UInt8], magick: String) throws {
    // ImageMagick 6 reads AVIF with its HEIC coder, and says HEIC.
    let variant = try fixtures.derive(try fixtures.photo(), "120x120 \(name)")
    #expect(variant.format == format)
    let bytes = fixtures.bytes(variant.path)
    #expect(Array(bytes.prefix(signature.count)) == signature)
    if format == .avif { #expect(Array(bytes[4..<12]) == Array("ftypavif".utf8)) }
    if format == .webp { #expect(Array(bytes[8..<12]) == Array("WEBP".utf8)) }
    #expect(ImageSniffer.sniff(path: variant.path)?.format == format)
    #expect(fixtures.identify(variant.path)?.format == magick)
    #expect(Deriver.writableFormats.contains(format))
  }

  @Test("same keeps a writable format, else PNG for alpha and JPEG without")
  func sameFormat() throws {
    let webp = try fixtures.convert("a.webp", ["-size", "40x30", "xc:red"])
    #expect(try fixtures.derive(webp, "20").format == .webp)
    let tiff = try fixtures.convert("a.tiff", ["-size", "40x30", "xc:red"])
    #expect(try fixtures.derive(tiff, "20").format == .jpeg)
    let clear = try fixtures.convert("alpha.tiff", ["-size", "40x30", "xc:none"])
    #expect(try fixtures.derive(clear, "20").format == .png)
    // JPEG has no alpha: a transparent original is flattened on white.
    let png = try fixtures.convert("clear.png", ["-size", "40x30", "xc:none"])
    let flat = try fixtures.derive(png, "jpeg")
    #expect(fixtures.colour(flat.path, 40, 30, 0, 0).allSatisfy { $0 > 240 })
  }

  @Test("quality changes the size of lossy formats; the default sits between")
  func quality() throws {
    let photo = try fixtures.photo()
    for format in ["jpeg", "webp", "avif"] {
      let low = try fixtures.derive(photo, "\(format) q=20").size
      let normal = try fixtures.derive(photo, format).size
      let high = try fixtures.derive(photo, "\(format) q=95").size
      #expect(low < normal, "\(format)")
      #expect(normal < high, "\(format)")
    }
  }

  @Test("EXIF orientations 6 and 8 are applied, and left alone with no-rotate", arguments: [6, 8])
  func orientation(orientation: Int) throws {
    let original = try fixtures.oriented(UInt8(orientation))
    #expect(ImageSniffer.sniff(path: original)?.width == 60)
    let upright = try fixtures.derive(original, "png")
    #expect((upright.width, upright.height) == (30, 60))
    #expect(fixtures.identify(upright.path).map { ($0.width, $0.height) }! == (30, 60))
    // 6 turns the picture clockwise (its left, red, goes to the top); 8 the other way.
    let top = fixtures.colour(upright.path, 30, 20, 0, 0)
    let bottom = fixtures.colour(upright.path, 30, 20, 0, 40)
    #expect(VariantFixtures.isRed(orientation == 6 ? top : bottom))
    #expect(VariantFixtures.isBlue(orientation == 6 ? bottom : top))
    let asStored = try fixtures.derive(original, "png no-rotate")
    #expect((asStored.width, asStored.height) == (60, 30))
    #expect(VariantFixtures.isRed(fixtures.colour(asStored.path, 20, 30, 0, 0)))
    // A box is fitted to the upright picture.
    let fitted = try fixtures.derive(original, "20x20")
    #expect((fitted.width, fitted.height) == (10, 20))
  }

  @Test("metadata is stripped by default and kept with keep-metadata")
  func metadata() throws {
    let original = try fixtures.oriented(6)
    let exif = Array("Exif".utf8) + [0, 0]
    let stripped = fixtures.bytes(try fixtures.derive(original, "jpeg").path)
    let kept = fixtures.bytes(try fixtures.derive(original, "jpeg keep-metadata").path)
    #expect(!contains(stripped, exif))
    #expect(contains(kept, exif))
    #expect(stripped.count < kept.count)
  }

  @Test("an animation keeps its frames only with animated; first frame otherwise")
  func animation() throws {
    let gif = try fixtures.convert(
      "anim.gif", ["-delay", "10", "-size", "40x30", "xc:red", "xc:lime", "xc:blue"])
    let first = try fixtures.derive(gif, "20")
    #expect(fixtures.identify(first.path)?.frames == 1)
    let all = try fixtures.derive(gif, "20 animated")
    #expect((all.width, all.height) == (20, 15))
    #expect(fixtures.identify(all.path)?.frames == 3)
    let webp = try fixtures.derive(gif, "20 webp animated")
    #expect(webp.format == .webp && (webp.width, webp.height) == (20, 15))
    let still = try fixtures.derive(gif, "20 png animated")
    #expect((still.width, still.height) == (20, 15))
  }

  @Test("derivations on several threads at once all succeed")
  func concurrent() throws {
    let photo = try fixtures.photo()
    try Deriver.setConcurrency(2)
    let results = Mutex<[Int]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { index in
      let width = (try? fixtures.derive(photo, "\(50 + index) webp"))?.width ?? 0
      results.withLock { $0.append(width) }
    }
    #expect(results.withLock { $0.sorted() } == Array(50..<58))
  }

  private func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
    guard bytes.count >= pattern.count else { return false }
    return (0...(bytes.count - pattern.count)).contains {
      bytes[$0..<($0 + pattern.count)].elementsEqual(pattern)
    }
  }
}
