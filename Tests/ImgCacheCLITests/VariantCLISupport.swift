import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Originals for the variant tests, made once per test process with ImageMagick in the
/// directory the test servers serve, and served by the fault server (which counts requests).
enum VariantOriginals {
  /// A 400×300 JPEG with detail everywhere.
  static let photo: String = {
    let name = "variant-photo.jpg"
    let made = run(
      "/usr/bin/convert",
      ["-seed", "7", "-size", "400x300", "plasma:red-blue", "+noise", "Gaussian", root + name])
    precondition(made.status == 0, "convert failed: \(made.stderr)")
    return name
  }()

  /// A 400×300 PNG whose top half is red and bottom half blue.
  static let halves: String = {
    let name = "variant-halves.png"
    let made = run(
      "/usr/bin/convert",
      ["-size", "400x150", "xc:red", "-size", "400x150", "xc:blue", "-append", root + name])
    precondition(made.status == 0, "convert failed: \(made.stderr)")
    return name
  }()

  /// A 2500×2500 PNG: a derivation that takes a while (PNG has no shrink-on-load).
  static let large: String = {
    let name = "variant-large.png"
    let made = run("/usr/bin/convert", ["-size", "2500x2500", "gradient:red-blue", root + name])
    precondition(made.status == 0, "convert failed: \(made.stderr)")
    return name
  }()

  /// The first half of ``photo``: its headers say 400×300, its scan data stops short.
  static let truncated: String = {
    let bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: root + photo)))) ?? []
    precondition(bytes.count > 1000, "no photo to cut")
    return (try? TestServers.shared.serve("variant-cut.jpg", Array(bytes.prefix(bytes.count / 2))))
      ?? "variant-cut.jpg"
  }()

  /// A PNG of under 100 bytes whose IHDR declares 60,000×60,000 (3.6 gigapixels).
  static let bomb: String = {
    let png = declaredPNG(width: 60_000, height: 60_000)
    return (try? TestServers.shared.serve("variant-bomb.png", png)) ?? "variant-bomb.png"
  }()

  /// The served directory, with a trailing slash.
  static var root: String { TestServers.shared.root + "/" }

  /// A URL of the fault server serving `name` that no other test asks for, and its request
  /// path (what `TestServers.requests` counts).
  static func url(_ name: String, type: String = "image/jpeg", _ extra: String = "")
    -> (url: String, path: String)
  {
    let path = "/image/\(name)?type=\(type)&v=\(UUID().uuidString.prefix(8))\(extra)"
    return (TestServers.shared.fault(path), path)
  }

  /// The file name a variant of `url` made with `preset` must have: the MD5 of the derived key
  /// (the URL's key, `#`, the canonical spec) and the extension of `format`.
  static func fileName(_ url: String, _ preset: String, _ format: ImageFormat) throws -> String {
    let spec = try VariantSpec.parse(preset: preset)
    return VariantSpec.fileName(
      derivedKey: spec.derivedKey(for: CacheKey.key(for: url)), format: format)
  }
}

extension CLIEnvironment {
  /// The value of one counter of `stats --json` (nil when it is not printed).
  func counter(_ name: String) -> Int? {
    (try? counters())?[name] as? Int
  }

  /// The regular files under `sub` of the cache directory (`data`, `tmp`), recursively.
  func files(under sub: String) -> [String] {
    let base = cacheDirectory + "/" + sub
    guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
    return walker.compactMap { $0 as? String }.filter { name in
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDirectory)
        && !isDirectory.boolValue
    }
  }

  /// The one record of `fetch --json` (or `query --json`) of `arguments`.
  func record(_ arguments: [String]) -> [String: Any]? {
    CLIEnvironment.records(run(arguments + ["--json"])).first
  }
}

/// What a fetch record says happened (its `status`): `derived`, `hit`, `downloaded`, …
func outcome(_ record: [String: Any]?) -> String? {
  record?["status"] as? String
}

/// The path a command printed: its stdout less the line break.
func printedPath(_ output: ProcessOutput) -> String {
  output.stdout.trimmingCharacters(in: .newlines)
}

/// `identify`'s format, width and height of the first frame of `path` (`WEBP 100 75`).
func identify(_ path: String) -> String {
  let result = run("/usr/bin/identify", ["-format", "%m %w %h", path + "[0]"])
  return result.status == 0 ? result.stdout : "identify failed: \(result.stderr)"
}

/// The mean colour of the image at `path`: `red`, `blue`, or its red and blue values.
func colour(_ path: String) -> String {
  let result = run(
    "/usr/bin/convert",
    [path + "[0]", "-resize", "1x1!", "-format", "%[fx:int(255*r)] %[fx:int(255*b)]", "info:"])
  let rb = result.stdout.split(separator: " ").compactMap { Int($0) }
  guard rb.count == 2 else { return "unreadable: \(result.stderr)" }
  return rb[0] > 200 && rb[1] < 50 ? "red" : rb[1] > 200 && rb[0] < 50 ? "blue" : "\(rb)"
}
