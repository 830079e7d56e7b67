import ArgumentParser
import ImgCacheKit

/// The flags that ask for an image variant instead of the original (docs/design.md, Variants):
/// `fetch`, `prefetch`, `query` and `remove` take them.
struct VariantFlags: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Resize: W, xH, WxH (fit inside), WxH^ (cover, then crop), WxH! (exact), WxH> (shrink only).",
      valueName: "geometry"))
  var resize: String?
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Crop gravity for WxH^: centre, north, south, east, west, northeast, northwest, southeast, southwest, attention, entropy."
    ))
  var gravity: String?
  @Option(
    name: .long,
    help:
      "Variant format: same (the original's when it can be written), jpeg, png, webp, avif, gif.")
  var format: String?
  @Option(name: .long, help: "Quality 1-100 (default: JPEG and WebP 80, AVIF 50).")
  var quality: String?
  @Flag(name: .long, help: "Enlarge an original smaller than the geometry.")
  var enlarge = false
  @Flag(name: .long, help: "Keep the metadata and colour profile (default: stripped, sRGB).")
  var keepMetadata = false
  @Flag(name: .long, help: "Do not apply the EXIF orientation.")
  var noRotate = false
  @Flag(name: .long, help: "Keep every frame of an animation (default: the first).")
  var animated = false
  @Option(name: .long, help: "A variant preset of the policy (variant.NAME = ...).")
  var variant: String?

  /// The variant asked for, or nil for the original. A preset and explicit flags exclude
  /// each other (a preset is the team's shared spec, not a base to edit).
  func spec(_ configuration: Configuration) throws -> VariantSpec? {
    let explicit =
      resize != nil || gravity != nil || format != nil || quality != nil || enlarge
      || keepMetadata || noRotate || animated
    if let variant {
      guard !explicit else {
        throw CacheError(
          .invalidInput, "--variant \(variant) is a whole spec: give it without other variant flags"
        )
      }
      return try configuration.variant(named: variant)
    }
    guard explicit else { return nil }
    return try VariantSpec(
      geometry: try resize.map(ResizeGeometry.parse),
      gravity: try gravity.map(Gravity.parse) ?? .centre,
      format: try format.map(VariantFormat.parse) ?? .same,
      quality: try quality.map(VariantSpec.parseQuality), enlarge: enlarge,
      keepMetadata: keepMetadata, noRotate: noRotate, animated: animated)
  }

  /// Sets the variant of `options` (and its limits) from these flags.
  func apply(
    to options: inout FetchOptions, discardOriginal: Bool, _ configuration: Configuration
  ) throws {
    options.variant = try spec(configuration)
    options.derivationLimits = configuration.derivation
    guard options.variant != nil || !discardOriginal else {
      throw CacheError(.invalidInput, "--discard-original needs a variant (--resize, --format, …)")
    }
    options.discardOriginal = discardOriginal
  }
}
