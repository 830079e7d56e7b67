import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// Images for the variant tests, made with ImageMagick in a temporary directory, and ways to
/// look at what a derivation wrote (ImageMagick's `identify`, the bytes themselves).
final class VariantFixtures: Sendable {
  let directory = TemporaryDirectory("imgcache-variants")
  /// Where derivations write; empty after a failure.
  let output = TemporaryDirectory("imgcache-variants-out")

  /// Makes `name` with `convert arguments… name` and returns its path.
  func convert(_ name: String, _ arguments: [String]) throws -> String {
    let path = directory.path + "/" + name
    let result = run("/usr/bin/convert", arguments + [path])
    guard result.status == 0 else {
      throw CacheError(.localIO, "convert \(arguments) failed: \(result.stderr)")
    }
    return path
  }

  /// A 400×300 picture with detail everywhere (so quality matters), as `name`.
  func photo(_ name: String = "photo.jpg") throws -> String {
    try convert(name, ["-size", "400x300", "plasma:red-blue", "-seed", "7", "+noise", "Gaussian"])
  }

  /// A `width`×`height` image whose top half is red and bottom half blue.
  func topRedBottomBlue(_ name: String, width: Int, height: Int) throws -> String {
    try convert(
      name,
      [
        "-size", "\(width)x\(height / 2)", "xc:red", "-size", "\(width)x\(height / 2)",
        "xc:blue", "-append",
      ])
  }

  /// A `width`×`height` image whose left half is red and right half blue.
  func leftRedRightBlue(_ name: String, width: Int, height: Int) throws -> String {
    try convert(
      name,
      [
        "-size", "\(width / 2)x\(height)", "xc:red", "-size", "\(width / 2)x\(height)",
        "xc:blue", "+append",
      ])
  }

  /// A JPEG of `width`×`height`, left red and right blue, with an EXIF orientation tag.
  func oriented(_ orientation: UInt8, width: Int = 60, height: Int = 30) throws -> String {
    let plain = try leftRedRightBlue("plain-\(orientation).jpg", width: width, height: height)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain)))
    // APP1 "Exif": a big-endian TIFF header and one IFD entry, 0x0112 (orientation), SHORT.
    let exif: [UInt8] =
      [0xFF, 0xE1, 0x00, 0x22] + Array("Exif".utf8) + [0, 0]
      + [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1]
      + [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, orientation, 0, 0] + [0, 0, 0, 0]
    bytes.insert(contentsOf: exif, at: 2)
    return try directory.write("oriented-\(orientation).jpg", bytes)
  }

  /// `identify`'s format, width and height of the first frame of `path`, and its frame count.
  func identify(_ path: String) -> (format: String, width: Int, height: Int, frames: Int)? {
    let result = run("/usr/bin/identify", ["-format", "%m %w %h\n", path])
    let lines = result.stdout.split(separator: "\n")
    guard result.status == 0, let first = lines.first else { return nil }
    let fields = first.split(separator: " ")
    guard fields.count == 3, let width = Int(fields[1]), let height = Int(fields[2]) else {
      return nil
    }
    return (String(fields[0]), width, height, lines.count)
  }

  /// The mean colour of the `width`×`height` region at (`x`, `y`) of `path`, 0–255 a channel.
  func colour(_ path: String, _ width: Int, _ height: Int, _ x: Int, _ y: Int) -> [Int] {
    let result = run(
      "/usr/bin/convert",
      [
        path + "[0]", "-crop", "\(width)x\(height)+\(x)+\(y)", "+repage", "-resize", "1x1!",
        "-format", "%[fx:int(255*r)] %[fx:int(255*g)] %[fx:int(255*b)]", "info:",
      ])
    return result.stdout.split(separator: " ").compactMap { Int($0) }
  }

  /// Whether the colour is mostly red (or mostly blue).
  static func isRed(_ rgb: [Int]) -> Bool { rgb.count == 3 && rgb[0] > 180 && rgb[2] < 80 }
  static func isBlue(_ rgb: [Int]) -> Bool { rgb.count == 3 && rgb[2] > 180 && rgb[0] < 80 }

  /// The bytes of the file at `path`.
  func bytes(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
  }

  /// The names left in the output directory.
  var leftovers: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
  }

  /// Derives `preset` of `original` into the output directory.
  func derive(
    _ original: String, _ preset: String, limits: DerivationLimits = DerivationLimits()
  ) throws -> DerivedVariant {
    let spec = try VariantSpec.parse(preset: preset)
    return try Deriver(limits: limits).derive(original: original, spec: spec, into: output.path)
  }

  /// The error kind and message of deriving `preset` of `original`; nil when it succeeds.
  func failure(
    _ original: String, _ preset: String, limits: DerivationLimits = DerivationLimits()
  ) -> CacheError? {
    do {
      _ = try derive(original, preset, limits: limits)
      return nil
    } catch let error as CacheError {
      return error
    } catch {
      return CacheError(.localIO, "unexpected \(error)")
    }
  }
}
