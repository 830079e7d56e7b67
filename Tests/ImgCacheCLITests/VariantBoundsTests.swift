import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// What a variant may be: its output's pixels are bounded like an original's, and no key an
/// original is stored under can pose as a variant's (docs/design.md, Variants).
@Suite("imgcache variants: output bounds, keys that pose as variants")
struct VariantBoundsTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("the output's pixels are checked against max_pixels before anything is decoded")
  func outputPixelsBounded() {
    let url = servers.nginx("base.png?bounds=\(UUID().uuidString)")
    let huge = env.run(["fetch", "--resize", "65535x65535!", "--enlarge", url])
    #expect(huge.status == 12, "\(huge.stderr)")
    #expect(huge.stderr.contains("the variant is 65535x65535 pixels"), "\(huge.stderr)")
    #expect(huge.stderr.contains("(max_pixels)"), "\(huge.stderr)")
    #expect(huge.stderr.split(separator: "\n").count == 1, "\(huge.stderr)")
    // One side given, the other follows the aspect: 37×21 to 65535 wide is 65535×37196.
    let wide = env.run(["fetch", "--resize", "65535", "--enlarge", url])
    #expect(wide.status == 12, "\(wide.stderr)")
    #expect(wide.stderr.contains("the variant is 65535x37196 pixels"), "\(wide.stderr)")
    // The original stays, and a variant within the limit is made.
    #expect(env.run(["query", url]).status == 0)
    #expect(env.run(["fetch", "--resize", "2000x2000!", "--enlarge", url]).status == 0)
  }

  @Test("a key given with '#' is refused: an original cannot pose as a variant")
  func keyWithSeparatorRefused() {
    let url = servers.nginx("base.png?posing=\(UUID().uuidString)")
    let posing = VariantSpec.keySeparator + "v1,w=64"
    let result = env.run(["fetch", "--any", "--key", url + posing, servers.nginx("base.txt")])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("--key"), "\(result.stderr)")
    #expect(env.run(["size", "--bytes"]).stdout.hasPrefix("0"), "nothing stored")
  }
}
