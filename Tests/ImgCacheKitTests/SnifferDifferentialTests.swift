import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheVariants

/// The sniffer against libvips' own header read: over the test images (and the benchmark's
/// corpus, when `make bench` made one), the same dimensions, and nothing libvips reads is
/// refused as "not an image".
@Suite("the sniffer agrees with libvips' header read")
struct SnifferDifferentialTests {
  /// The files to compare: every fixture, the same JPEGs with stray bytes between segments
  /// (which libjpeg skips with a warning), and the benchmark corpus if there is one.
  private func files(in work: TemporaryDirectory) throws -> [String] {
    var paths = Fixtures.images.map(\.path)
    for name in ["base.jpg", "progressive.jpg"] {
      var jpeg = Fixtures.bytes(name)
      let first = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
      jpeg.insert(contentsOf: [0x00, 0x12, 0xFF, 0x00], at: first)
      let path = work.path + "/stray-" + name
      try Data(jpeg).write(to: URL(fileURLWithPath: path))
      paths.append(path)
    }
    let corpus = repositoryRoot.appendingPathComponent("bench/corpus").path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []
    for name in names.sorted().prefix(2_000) { paths.append(corpus + "/" + name) }
    return paths
  }

  @Test("same width and height as libvips; nothing libvips reads is 'not an image'")
  func agreesWithLibvips() throws {
    let vips = try VipsLibrary.loaded()
    let work = TemporaryDirectory("imgcache-differential-files")
    var compared = 0
    for path in try files(in: work) {
      guard
        let header = try? VipsImageReference.open(vips, "reading", path + "[fail_on=error]")
      else {
        _ = vips.takeError()
        continue  // a format libvips does not read here (blocked loaders: SVG, PDF, JPEG XL)
      }
      let info = ImageSniffer.sniff(path: path)
      #expect(info != nil, "libvips reads \(path) but the sniffer says 'not an image'")
      #expect(info?.width == header.width, "\(path): width")
      #expect(info?.height == header.pageHeight, "\(path): height")
      compared += 1
    }
    withExtendedLifetime(work) {}
    #expect(compared >= 10, "compared \(compared) files")
  }
}
