import FoundationEssentials

/// The policy of image variants (docs/design.md, Variants): the limits an original must fit
/// before anything is decoded, and the named presets a team shares (`variant.thumb =
/// 320x320^ webp q=75`).
extension PolicyKey {
  /// The name prefix of a preset's key.
  public static let presetPrefix = "variant."

  /// The limits on what is decoded.
  static let variantKeys: [PolicyKey] = [
    PolicyKey(
      name: "max_pixels", summary: "largest original a variant is made from (pixels x frames)",
      expected: "a whole number of pixels from 1 to 10^12, like 50000000",
      apply: { config, text in
        guard let value = Int64(text), value >= 1, value <= 1_000_000_000_000 else {
          return false
        }
        config.derivation.maxPixels = value
        return true
      }, render: { "\($0.derivation.maxPixels)" }),
    .integer(
      "max_frames", "most frames an animated variant is made from", \.derivation.maxFrames,
      minimum: 1, maximum: 100_000),
    .integer(
      "max_scans", "most scans of a JPEG original a variant is made from",
      \.derivation.maxScans, minimum: 1, maximum: 1_000_000),
    .duration(
      "derive_timeout", "time one variant may take to make; 0s: no limit",
      \.derivation.timeout),
  ]

  /// The key of the preset `name` (`variant.<name>`), whose value is a spec as the variant
  /// flags would give it: a geometry, a format, `q=N`, `gravity=G`, `enlarge`, `keep-metadata`,
  /// `no-rotate`, `animated`. Nil when `name` is not a preset name (letters, digits, `-`, `_`).
  public static func preset(_ name: String) -> PolicyKey? {
    guard !name.isEmpty, name.count <= 64,
      name.unicodeScalars.allSatisfy({ $0.isASCII && (isPresetCharacter($0)) })
    else { return nil }
    return PolicyKey(
      name: presetPrefix + name, summary: "variant preset",
      expected: "a geometry, a format, q=N, gravity=G, enlarge, keep-metadata, no-rotate, animated",
      apply: { config, text in
        config.variants[name] = text.isEmpty ? nil : try VariantSpec.parse(preset: text)
        config.variantTexts[name] = text.isEmpty ? nil : text
        return true
      }, render: { $0.variantTexts[name] ?? "" })
  }

  /// Whether this is the key of a preset.
  public var isPreset: Bool { name.hasPrefix(Self.presetPrefix) }

  private static func isPresetCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9", "-", "_": true
    default: false
    }
  }
}

extension Configuration {
  /// The preset `name`, or an `.invalidInput` error naming the presets there are.
  public func variant(named name: String) throws -> VariantSpec {
    if let spec = variants[name] { return spec }
    let known = variants.keys.sorted().joined(separator: ", ")
    throw CacheError(
      .invalidInput,
      "no variant preset '\(name)' (\(known.isEmpty ? "none is set" : "set: " + known)); "
        + "set one with: imgcache config set variant.\(name) '320x320^ webp q=75'")
  }
}
