import CVips
import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheVariants

@Suite("libvips as imgcache loads it: version, ABI constants, blocked loaders")
struct VariantLibraryTests {
  @Test("the shim's enum values are the loaded libvips' own")
  func enumValues() throws {
    let vips = try VipsLibrary.loaded()
    func value(_ type: String, _ nick: String) -> Int {
      Int(imgcache_vips_enum_value(vips.api, type, nick))
    }
    let sizes = [
      ("both", IMGCACHE_SIZE_BOTH), ("up", IMGCACHE_SIZE_UP), ("down", IMGCACHE_SIZE_DOWN),
      ("force", IMGCACHE_SIZE_FORCE),
    ]
    for (nick, constant) in sizes {
      #expect(value("vips_size_get_type", nick) == Int(constant.rawValue), "\(nick)")
    }
    let interests = [
      ("none", IMGCACHE_INTERESTING_NONE), ("centre", IMGCACHE_INTERESTING_CENTRE),
      ("entropy", IMGCACHE_INTERESTING_ENTROPY), ("attention", IMGCACHE_INTERESTING_ATTENTION),
    ]
    for (nick, constant) in interests {
      #expect(value("vips_interesting_get_type", nick) == Int(constant.rawValue), "\(nick)")
    }
    let directions = [
      ("centre", IMGCACHE_DIRECTION_CENTRE), ("north", IMGCACHE_DIRECTION_NORTH),
      ("east", IMGCACHE_DIRECTION_EAST), ("south", IMGCACHE_DIRECTION_SOUTH),
      ("west", IMGCACHE_DIRECTION_WEST), ("north-east", IMGCACHE_DIRECTION_NORTH_EAST),
      ("south-east", IMGCACHE_DIRECTION_SOUTH_EAST), ("south-west", IMGCACHE_DIRECTION_SOUTH_WEST),
      ("north-west", IMGCACHE_DIRECTION_NORTH_WEST),
    ]
    for (nick, constant) in directions {
      #expect(value("vips_compass_direction_get_type", nick) == Int(constant.rawValue), "\(nick)")
    }
    #expect(value("vips_fail_on_get_type", "error") == Int(IMGCACHE_FAIL_ON_ERROR))
    #expect(value("vips_extend_get_type", "copy") == Int(IMGCACHE_EXTEND_COPY))
    #expect(value("vips_foreign_heif_compression_get_type", "av1") == Int(IMGCACHE_HEIF_AV1))
    #expect(value("vips_interpretation_get_type", "cmyk") == Int(IMGCACHE_INTERPRETATION_CMYK))
    #expect(value("vips_size_get_type", "sideways") == -1)
  }

  @Test("the loader of SVG is blocked inside libvips too, not only by imgcache's own check")
  func untrustedBlocked() throws {
    let vips = try VipsLibrary.loaded()
    let svg = Fixtures.image("base.svg").path
    #expect(throws: VipsFailure.self) { _ = try VipsImageReference.open(vips, "svg", svg) }
    // A PNG opens: the block is not a refusal of everything.
    let png = try VipsImageReference.open(vips, "png", Fixtures.image("base.png").path)
    #expect((png.width, png.height) == (37, 21))
  }

  @Test("libvips' error buffer is read as one line and emptied")
  func errorBuffer() throws {
    let vips = try VipsLibrary.loaded()
    #expect(throws: VipsFailure.self) {
      _ = try VipsImageReference.open(vips, "absent", "/nonexistent/file.png")
    }
    // Emptied: the message taken by the failure is not read again. (Other suites derive in
    // parallel and may leave messages of their own in the process-wide buffer.)
    #expect(!vips.takeError().contains("/nonexistent/file.png"))
    do {
      _ = try VipsImageReference.open(vips, "absent", "/nonexistent/file.png")
    } catch let failure as VipsFailure {
      #expect(!failure.message.isEmpty && !failure.message.contains("\n"))
    }
  }

  @Test("libvips runs no ORC code: liborc's races corrupted the heap under concurrent derivations")
  func noVectorCode() throws {
    _ = try VipsLibrary.loaded()
    #expect(VipsLibrary.runsVectorCode == false)
  }

  @Test("this Debian libvips writes AVIF")
  func avif() {
    #expect(Deriver.writableFormats.contains(.avif))
  }
}
