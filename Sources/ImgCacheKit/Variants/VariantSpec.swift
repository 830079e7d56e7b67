import FoundationEssentials

/// How a variant is derived from its original: a resize, a crop gravity, an output format and
/// quality, and what happens to metadata, orientation and animation. A variant's key is its
/// original's plus ``canonical``; its file is named as docs/design.md, Keys and file names,
/// says, with the extension of the format produced.
///
/// Values are checked when they are made (``ResizeGeometry/parse(_:)``,
/// ``VariantSpec/parse(preset:)``, the throwing initialiser), so a spec that exists can be
/// derived.
public struct VariantSpec: Sendable, Hashable {
  /// The version of the canonical form and of every default it leaves to derivation time (the
  /// format of `same`, the quality of `auto`). Bumped whenever one of them changes, so a
  /// variant made under the old rule is never taken for one made under the new.
  public static let version = 1

  /// The resize, or nil to keep the original's size.
  public let geometry: ResizeGeometry?
  /// Where a `^` crop keeps the picture; only a cover resize crops.
  public let gravity: Gravity
  /// The output format asked for.
  public let format: VariantFormat
  /// The quality asked for (1–100), or nil for the output format's default
  /// (``defaultQuality(for:)``).
  public let quality: Int?
  /// Whether an image smaller than the box may be enlarged (never, by default).
  public let enlarge: Bool
  /// Whether metadata (EXIF, XMP, ICC profile) is kept; by default it is stripped and the
  /// pixels converted to sRGB, so a thumbnail is small and shows the same colours everywhere.
  public let keepMetadata: Bool
  /// Whether the EXIF orientation is left unapplied; by default the variant is turned upright.
  public let noRotate: Bool
  /// Whether every frame of an animated GIF or WebP is kept; by default only the first.
  public let animated: Bool

  /// The quality limits a spec accepts.
  public static let qualityRange = 1...100

  /// A spec; throws ``CacheError/Kind/invalidInput`` for a quality outside 1–100 or a `>`
  /// (shrink only) geometry with `enlarge`.
  public init(
    geometry: ResizeGeometry? = nil, gravity: Gravity = .centre, format: VariantFormat = .same,
    quality: Int? = nil, enlarge: Bool = false, keepMetadata: Bool = false,
    noRotate: Bool = false, animated: Bool = false
  ) throws {
    if let quality, !Self.qualityRange.contains(quality) {
      throw CacheError(.invalidInput, "quality \(quality): expected 1 to 100")
    }
    if enlarge, geometry?.shrinkOnly == true {
      throw CacheError(
        .invalidInput, "geometry \(geometry?.text ?? ""): '>' means shrink only; drop it or enlarge"
      )
    }
    self.geometry = geometry
    self.gravity = gravity
    self.format = format
    self.quality = quality
    self.enlarge = enlarge
    self.keepMetadata = keepMetadata
    self.noRotate = noRotate
    self.animated = animated
  }

  /// The default quality of a lossy output format; nil for a lossless one (PNG, GIF).
  ///
  /// JPEG and WebP 80: sharp's defaults, a little above libvips' 75, where ringing around
  /// sharp edges starts to show on small thumbnails. AVIF 50: libvips' and sharp's default;
  /// AV1's quantiser is on another scale, and 50 looks about like JPEG 80 at a fraction of
  /// the size. Changing one of these changes what `q=auto` means: bump ``version``.
  public static func defaultQuality(for format: ImageFormat) -> Int? {
    switch format {
    case .jpeg, .webp: 80
    case .avif: 50
    default: nil
    }
  }

  /// The quality a derivation writes `format` with: the one asked for, else its default; nil
  /// for a lossless format.
  public func quality(for format: ImageFormat) -> Int? {
    guard let fallback = Self.defaultQuality(for: format) else { return nil }
    return quality ?? fallback
  }

  /// Whether frames beyond the first are kept: asked for, and the output can animate (GIF,
  /// WebP, or `same`, which keeps a GIF or WebP original's format).
  public var keepsFrames: Bool {
    animated && [.same, .gif, .webp].contains(format)
  }

  /// The canonical form: every field in a fixed order, every default resolved and written
  /// out, integers only, lowercase, versioned. Two specs that derive the same variant have the
  /// same canonical form (a gravity without a cover crop is `centre`, a lossless format's
  /// quality is 0); a later change of a default changes ``version``, never the meaning of an
  /// existing form.
  ///
  /// `v1,w=320,h=320,fit=cover,g=centre,up=0,fmt=webp,q=80,meta=0,rot=1,anim=0`: `w`, `h` are
  /// the box (0: that side is free; both 0 with `fit=none`: no resize); `fit` is `none`,
  /// `inside`, `cover` or `fill`; `up` 1 allows enlarging; `fmt` is `same` or a format; `q`
  /// is the quality, `auto` for `same` without one (the default of the format produced), 0
  /// for PNG and GIF; `meta` 1 keeps metadata; `rot` 1 applies the EXIF orientation; `anim` 1
  /// keeps every frame.
  public var canonical: String {
    let fit = geometry?.fit.rawValue ?? "none"
    let isCover = geometry?.fit == .cover
    let quality: String
    if let produced = format.imageFormat {
      quality = String(self.quality(for: produced) ?? 0)
    } else {
      quality = self.quality.map(String.init) ?? "auto"
    }
    let fields = [
      "v\(Self.version)", "w=\(geometry?.width ?? 0)", "h=\(geometry?.height ?? 0)",
      "fit=\(fit)", "g=\(isCover ? gravity.rawValue : Gravity.centre.rawValue)",
      "up=\(geometry != nil && enlarge ? 1 : 0)", "fmt=\(format.rawValue)", "q=\(quality)",
      "meta=\(keepMetadata ? 1 : 0)", "rot=\(noRotate ? 0 : 1)", "anim=\(keepsFrames ? 1 : 0)",
    ]
    return fields.joined(separator: ",")
  }

  /// The key of this variant of the original stored under `originalKey`: the original's key,
  /// `#`, then ``canonical`` (a fragment never reaches a server, so no URL's key has one).
  public func derivedKey(for originalKey: String) -> String {
    originalKey + Self.keySeparator + canonical
  }

  /// What separates an original's key from a variant's spec in a derived key
  /// (``CacheKey/variantSeparator``).
  public static let keySeparator = CacheKey.variantSeparator

  /// The file name of a variant: the lowercase hex MD5 of its derived key and the extension
  /// of the format produced (`jpg`, `png`, `webp`, `avif`, `gif`), not one taken from the
  /// URL: a variant's format is often not its original's.
  public static func fileName(derivedKey: String, format: ImageFormat) -> String {
    MD5.hex(of: derivedKey) + "." + fileExtension(of: format)
  }

  /// The extension a variant in `format` is stored with.
  public static func fileExtension(of format: ImageFormat) -> String {
    format == .jpeg ? "jpg" : format.rawValue
  }
}

/// A resize in ImageMagick's geometry: `W`, `xH`, `WxH` (fit inside), `WxH^` (cover, then crop
/// to the box at a gravity), `WxH!` (exactly, aspect ignored), `WxH>` (shrink only, the
/// default anyway).
public struct ResizeGeometry: Sendable, Hashable {
  /// How the image meets the box.
  public enum Fit: String, Sendable, CaseIterable {
    /// Scaled to fit inside the box, aspect kept (`WxH`, `W`, `xH`, `WxH>`).
    case inside
    /// Scaled to cover the box, aspect kept, then cropped to it (`WxH^`).
    case cover
    /// Scaled to exactly the box, aspect ignored (`WxH!`).
    case fill
  }

  /// The largest side a geometry may ask for.
  public static let maxSide = 65_535

  /// The box's width; nil leaves the width free (`xH`).
  public let width: Int?
  /// The box's height; nil leaves the height free (`W`).
  public let height: Int?
  /// How the image meets the box.
  public let fit: Fit
  /// Whether the geometry said `>` (shrink only): the default, written out.
  public let shrinkOnly: Bool

  /// A geometry; throws ``CacheError/Kind/invalidInput`` for a side outside 1–65,535, no
  /// side at all, or a cover or fill without both sides.
  public init(width: Int?, height: Int?, fit: Fit = .inside, shrinkOnly: Bool = false) throws {
    if let problem = Self.problem(width: width, height: height, fit: fit, shrinkOnly: shrinkOnly) {
      let text = Self.text(width: width, height: height, fit: fit, shrinkOnly: shrinkOnly)
      throw CacheError(.invalidInput, "geometry '\(text)': \(problem)")
    }
    self.width = width
    self.height = height
    self.fit = fit
    self.shrinkOnly = shrinkOnly
  }

  /// What is wrong with a geometry of these fields, or nil.
  static func problem(width: Int?, height: Int?, fit: Fit, shrinkOnly: Bool) -> String? {
    for side in [width, height].compactMap({ $0 }) where !(1...maxSide).contains(side) {
      return "a side must be 1 to \(maxSide) pixels"
    }
    if width == nil && height == nil { return "give a width, a height or both" }
    if fit != .inside, width == nil || height == nil {
      return "'\(fit == .cover ? "^" : "!")' needs a width and a height"
    }
    if shrinkOnly, fit != .inside { return "'>' goes with a plain WxH only" }
    return nil
  }

  /// The geometry as ImageMagick writes it: `320x240^`.
  public var text: String {
    Self.text(width: width, height: height, fit: fit, shrinkOnly: shrinkOnly)
  }

  private static func text(width: Int?, height: Int?, fit: Fit, shrinkOnly: Bool) -> String {
    let box = (width.map(String.init) ?? "") + (height.map { "x\($0)" } ?? "")
    switch fit {
    case .inside: return box + (shrinkOnly ? ">" : "")
    case .cover: return box + "^"
    case .fill: return box + "!"
    }
  }
}

/// Where a cover crop keeps the picture: a side or corner, the centre, or libvips' smart crops
/// (`attention`: skin tones, saturation and edges; `entropy`: the busiest region).
public enum Gravity: String, Sendable, CaseIterable {
  case centre, north, south, east, west, northeast, northwest, southeast, southwest
  case attention, entropy
}

/// The output format asked for: one of the five libvips writes for imgcache, or `same`.
public enum VariantFormat: String, Sendable, CaseIterable {
  /// The original's format when it is one of the others; else PNG for an image with alpha,
  /// JPEG without.
  case same
  case jpeg, png, webp, avif, gif

  /// The format produced, when it does not depend on the original.
  public var imageFormat: ImageFormat? {
    switch self {
    case .same: nil
    case .jpeg: .jpeg
    case .png: .png
    case .webp: .webp
    case .avif: .avif
    case .gif: .gif
    }
  }

  /// The format produced from an original in `original`, with or without an alpha channel.
  public func resolved(original: ImageFormat, hasAlpha: Bool) -> ImageFormat {
    if let imageFormat { return imageFormat }
    let writable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .gif]
    if writable.contains(original) { return original }
    return hasAlpha ? .png : .jpeg
  }
}
