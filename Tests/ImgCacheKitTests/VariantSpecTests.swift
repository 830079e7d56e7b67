import Foundation
import Testing

@testable import ImgCacheKit

@Suite("Variant specs: geometry, presets, canonical form and keys")
struct VariantSpecTests {
  @Test(
    "every geometry form parses to its box and fit",
    arguments: [
      ("320", 320, nil, ResizeGeometry.Fit.inside, false),
      ("320x", 320, nil, .inside, false),
      ("x240", nil, 240, .inside, false),
      ("320x240", 320, 240, .inside, false),
      ("320X240", 320, 240, .inside, false),
      ("320x240^", 320, 240, .cover, false),
      ("320x240!", 320, 240, .fill, false),
      ("320x240>", 320, 240, .inside, true),
      ("x240>", nil, 240, .inside, true),
      ("1x65535", 1, 65_535, .inside, false),
    ] as [(String, Int?, Int?, ResizeGeometry.Fit, Bool)])
  func geometries(text: String, width: Int?, height: Int?, fit: ResizeGeometry.Fit, shrink: Bool)
    throws
  {
    let geometry = try ResizeGeometry.parse(text)
    #expect(geometry.width == width)
    #expect(geometry.height == height)
    #expect(geometry.fit == fit)
    #expect(geometry.shrinkOnly == shrink)
  }

  @Test(
    "a bad geometry is one line naming it and what is wrong",
    arguments: [
      ("", "give a width"), ("x", "give a width"), ("0x10", "1 to 65535"),
      ("65536", "1 to 65535"), ("99999999999999999999999", "1 to 65535"),
      ("-5x5", "not a number"), ("1.5x2", "not a number"), ("320^", "needs a width and a height"),
      ("x240!", "needs a width and a height"), ("10x10<", "not supported"),
      ("50%", "not supported"), ("10x10x10", "not a number"), ("10 x10", "not a number"),
      ("١٢x3", "not a number"), ("10x10^>", "not a number"),
    ])
  func badGeometries(text: String, reason: String) {
    #expect {
      _ = try ResizeGeometry.parse(text)
    } throws: { error in
      let error = error as? CacheError
      return error?.kind == .invalidInput && error?.message.contains("'\(text)'") == true
        && error?.message.contains(reason) == true && error?.message.contains("\n") == false
    }
  }

  @Test("the canonical form writes every default out, in a fixed order")
  func canonicalDefaults() throws {
    let plain = try VariantSpec()
    #expect(
      plain.canonical == "v1,w=0,h=0,fit=none,g=centre,up=0,fmt=same,q=auto,meta=0,rot=1,anim=0")
    let thumb = try VariantSpec.parse(preset: "320x320^ webp")
    #expect(
      thumb.canonical == "v1,w=320,h=320,fit=cover,g=centre,up=0,fmt=webp,q=80,meta=0,rot=1,anim=0")
    let every = try VariantSpec.parse(
      preset: "animated no-rotate keep-metadata enlarge gravity=north q=75 gif 100x50^")
    #expect(
      every.canonical == "v1,w=100,h=50,fit=cover,g=north,up=1,fmt=gif,q=0,meta=1,rot=0,anim=1")
    #expect(try VariantSpec.parse(preset: "x90 avif").canonical.contains(",w=0,h=90,fit=inside,"))
    #expect(try VariantSpec.parse(preset: "avif").canonical.contains(",fmt=avif,q=50,"))
    #expect(try VariantSpec.parse(preset: "jpeg").canonical.contains(",fmt=jpeg,q=80,"))
    #expect(try VariantSpec.parse(preset: "same q=60").canonical.contains(",fmt=same,q=60,"))
    #expect(try VariantSpec.parse(preset: "10x10!").canonical.contains(",fit=fill,"))
    for spec in [plain, thumb, every] {
      let fields = spec.canonical.split(separator: ",")
      #expect(fields.count == 11)
      #expect(
        fields.dropFirst().map { $0.split(separator: "=")[0] } == [
          "w", "h", "fit", "g", "up", "fmt", "q", "meta", "rot", "anim",
        ])
      #expect(spec.canonical == spec.canonical.lowercased())
    }
  }

  @Test("specs that derive the same image have one canonical form; others differ")
  func canonicalEquivalence() throws {
    func canonical(_ preset: String) throws -> String {
      try VariantSpec.parse(preset: preset).canonical
    }
    #expect(try canonical("320x240") == canonical("320x240>"))
    #expect(try canonical("320x240 gravity=north") == canonical("320x240"))
    #expect(try canonical("320x240^ gravity=center") == canonical("320x240^ gravity=centre"))
    #expect(try canonical("320x240^") == canonical("320x240^ gravity=centre"))
    #expect(try canonical("webp") == canonical("webp q=80"))
    #expect(try canonical("jpg") == canonical("JPEG"))
    #expect(try canonical("png q=10") == canonical("png q=90"))
    #expect(try canonical("jpeg animated") == canonical("jpeg"))
    #expect(try canonical("q=80") != canonical("same"))
    #expect(try canonical("320x240^ gravity=north") != canonical("320x240^ gravity=south"))
    #expect(try canonical("320x240") != canonical("320x240 enlarge"))
    #expect(try canonical("320x240^") != canonical("320x240!"))
    #expect(try canonical("320") != canonical("x320"))
    #expect(try canonical("gif animated") != canonical("gif"))
    #expect(try canonical("webp no-rotate") != canonical("webp"))
    #expect(try canonical("webp keep-metadata") != canonical("webp"))
  }

  @Test("a derived key is the original key, '#', the canonical form; its file is MD5 + extension")
  func keys() throws {
    let spec = try VariantSpec.parse(preset: "320x320^ webp q=75")
    let key = spec.derivedKey(for: "https://example.com/cat.jpg")
    #expect(key == "https://example.com/cat.jpg#" + spec.canonical)
    let name = VariantSpec.fileName(derivedKey: key, format: .webp)
    #expect(name == MD5.hex(of: key) + ".webp")
    #expect(VariantSpec.fileName(derivedKey: key, format: .jpeg).hasSuffix(".jpg"))
    #expect(VariantSpec.fileName(derivedKey: key, format: .avif).hasSuffix(".avif"))
    #expect(name != CacheKey.fileName(for: "https://example.com/cat.jpg"))
  }

  @Test("a preset reads every token, in any order")
  func presets() throws {
    let spec = try VariantSpec.parse(
      preset: "  webp\tq=75 320x320^ gravity=attention enlarge keep-metadata no-rotate animated ")
    #expect(spec.geometry == (try ResizeGeometry(width: 320, height: 320, fit: .cover)))
    #expect(spec.format == .webp)
    #expect(spec.quality == 75)
    #expect(spec.gravity == .attention)
    #expect(spec.enlarge && spec.keepMetadata && spec.noRotate && spec.animated)
    let bare = try VariantSpec.parse(preset: "x100")
    #expect(bare.format == .same && bare.quality == nil && bare.gravity == .centre)
    #expect(!bare.enlarge && !bare.keepMetadata && !bare.noRotate && !bare.animated)
  }

  @Test(
    "a bad preset is one line naming the token at fault",
    arguments: [
      ("320x320^ webp q=0", "q=0"), ("320x320^ q=101", "q=101"), ("q=abc", "q=abc"),
      ("q=99999999999999999999", "q=99999999999999999999"), ("webp bmp", "bmp"),
      ("320x320 gravity=up", "gravity 'up'"), ("webp png", "'png': format already given by 'webp'"),
      ("320 x240", "geometry already given"), ("enlarge enlarge", "enlarge"),
      ("320x240> enlarge", "shrink only"), ("0x0", "'0x0'"), ("", "empty"),
      ("320x240 sharpen", "unknown token 'sharpen'"), ("q=75 q=80", "quality already given"),
    ])
  func badPresets(preset: String, culprit: String) {
    #expect {
      _ = try VariantSpec.parse(preset: preset)
    } throws: { error in
      let error = error as? CacheError
      return error?.kind == .invalidInput && error?.message.contains(culprit) == true
        && error?.message.contains("\n") == false
    }
  }

  @Test("flags' values parse on their own: gravity, format, quality")
  func singleValues() throws {
    #expect(try Gravity.parse("Center") == .centre)
    #expect(try Gravity.parse("southwest") == .southwest)
    #expect(throws: CacheError.self) { try Gravity.parse("middle") }
    #expect(try VariantFormat.parse("JPG") == .jpeg)
    #expect(try VariantFormat.parse("same") == .same)
    #expect(throws: CacheError.self) { try VariantFormat.parse("heic") }
    #expect(try VariantSpec.parseQuality("1") == 1)
    #expect(try VariantSpec.parseQuality("100") == 100)
    for bad in ["0", "101", "", "+5", "5.0", " 5", "1e2"] {
      #expect(throws: CacheError.self) { try VariantSpec.parseQuality(bad) }
    }
    #expect(throws: CacheError.self) { try VariantSpec(quality: 0) }
    #expect(throws: CacheError.self) { try ResizeGeometry(width: 70_000, height: nil) }
    #expect(throws: CacheError.self) { try ResizeGeometry(width: nil, height: nil) }
  }

  @Test("a resolved format: same keeps a writable format, else PNG with alpha, JPEG without")
  func sameFormat() {
    #expect(VariantFormat.same.resolved(original: .webp, hasAlpha: true) == .webp)
    #expect(VariantFormat.same.resolved(original: .gif, hasAlpha: false) == .gif)
    #expect(VariantFormat.same.resolved(original: .heic, hasAlpha: false) == .jpeg)
    #expect(VariantFormat.same.resolved(original: .tiff, hasAlpha: true) == .png)
    #expect(VariantFormat.webp.resolved(original: .png, hasAlpha: true) == .webp)
  }
}
