import CVips
import FoundationEssentials
import Glibc

/// The limits an original is checked against, from its headers, before anything is decoded
/// (docs/design.md, Untrusted input: a hostile value is an error, never a crash or a flood of
/// memory).
public struct DerivationLimits: Sendable, Hashable {
  /// 50 megapixels: above any camera's photo in common use (a 45 MP full-frame sensor), far
  /// below what a decompression bomb declares; imgproxy's default too.
  public static let defaultMaxPixels: Int64 = 50_000_000
  /// 100 frames: ten seconds of a 10 fps animation; each frame is decoded and resized.
  public static let defaultMaxFrames = 100

  /// The most pixels an original may have (of every frame loaded, with `animated`).
  public var maxPixels: Int64
  /// 100 scans: ten times what libjpeg's own progressive script writes (and mozjpeg's
  /// optimised ones are shorter still); a decoder goes over every block once per scan.
  public static let defaultMaxScans = 100
  /// 30 seconds: a thumbnail of a 50-megapixel original takes a second or two.
  public static let defaultTimeout: TimeInterval = 30

  /// The most frames an animated original may have, with `animated`.
  public var maxFrames: Int
  /// The most scans a JPEG original may have (progressive JPEGs; libjpeg-turbo's
  /// `-maxscans`), counted before anything is decoded.
  public var maxScans: Int
  /// How long one derivation may take, in seconds; 0: no limit (`derive_timeout`).
  public var timeout: TimeInterval

  /// Limits of `maxPixels` pixels, `maxFrames` frames, `maxScans` scans and `timeout`
  /// seconds.
  public init(
    maxPixels: Int64 = defaultMaxPixels, maxFrames: Int = defaultMaxFrames,
    maxScans: Int = defaultMaxScans, timeout: TimeInterval = defaultTimeout
  ) {
    self.maxPixels = maxPixels
    self.maxFrames = maxFrames
    self.maxScans = maxScans
    self.timeout = timeout
  }
}

/// A variant written to a temporary file, ready to be stored.
public struct DerivedVariant: Sendable, Hashable {
  /// The temporary file holding the variant's body; the caller moves or removes it.
  public var path: String
  /// The width in pixels.
  public var width: Int
  /// The height in pixels (of one frame, for an animation).
  public var height: Int
  /// The format written.
  public var format: ImageFormat
  /// The body's size in bytes.
  public var size: Int64
  /// Whether the direct JPEG path made it (else libvips).
  package var madeDirectly = false
  /// Whether the direct path's planar way made it (YCbCr planes throughout).
  package var madePlanar = false
}

/// Derives variants from originals with libvips: synchronous and blocking (run it off the
/// event loop's thread), safe to call from several threads at once.
public struct Deriver: Sendable {
  /// The limits every original is checked against.
  public var limits: DerivationLimits
  /// Whether a JPEG made from a JPEG may take the direct path (libjpeg-turbo and libyuv,
  /// docs/design.md, Variants); false sends every image through libvips.
  package var usesDirectJPEG = true
  /// Whether the direct path may keep a 4:2:0 JPEG in YCbCr planes throughout (its planar
  /// way); false converts every one to BGRX and back.
  package var usesPlanarJPEG = true

  /// A deriver checking originals against `limits`.
  public init(limits: DerivationLimits = DerivationLimits()) {
    self.limits = limits
  }

  /// Sets how many threads libvips runs for one derivation (1…64), for the whole process.
  public static func setConcurrency(_ threads: Int) throws {
    try VipsLibrary.loaded().setConcurrency(threads)
  }

  /// The output formats this libvips can write: JPEG, PNG, WebP and GIF always; AVIF when
  /// libheif has an AV1 encoder.
  public static var writableFormats: [ImageFormat] {
    [.jpeg, .png, .webp, .gif] + (VipsLibrary.writesAVIF ? [.avif] : [])
  }

  /// Why an original in a format is never derived from, by format.
  static let refusals: [ImageFormat: String] = [
    .svg: "SVG is rendered by a loader that is blocked for untrusted input",
    .pdf: "PDF is rendered by a loader that is blocked for untrusted input",
    .jxl: "JPEG XL is read by a loader that is blocked for untrusted input",
    .bmp: "this libvips reads BMP only through ImageMagick, blocked for untrusted input",
    .ico: "this libvips reads ICO only through ImageMagick, blocked for untrusted input",
  ]

  /// Derives the variant `spec` of the original at `original` into a new temporary file in
  /// `directory`. Checks the original's headers against ``limits`` before decoding anything.
  /// On failure nothing is left in `directory`.
  ///
  /// Throws ``CacheError/Kind/tooLarge`` (over a limit), ``CacheError/Kind/cannotDerive`` (a
  /// format never derived from, a damaged original, a format this libvips cannot write) or
  /// ``CacheError/Kind/localIO`` (the temporary file).
  public func derive(
    original: String, spec: VariantSpec, into directory: String
  ) throws -> DerivedVariant {
    try derive(
      original: original, spec: spec, into: directory,
      budget: DerivationBudget(seconds: limits.timeout))
  }

  /// ``derive(original:spec:into:)`` within `budget`: libvips is stopped when it is spent or
  /// cancelled (``DerivationBudget``), and nothing is left behind when its waiter gave up.
  package func derive(
    original: String, spec: VariantSpec, into directory: String, budget: DerivationBudget
  ) throws -> DerivedVariant {
    let info = try check(original: original)
    // A JPEG the direct path may take is read once: its scans, its header walk, its decode.
    var body =
      info.format == .jpeg && usesDirectJPEG
      ? try? WholeFile.read(original, limit: Self.directBufferLimit) : nil
    if info.format == .jpeg { try checkScans(original: original, body: body) }
    let (path, descriptor) = try FileIO.makeTemporaryFile(
      in: directory, prefix: "derive-\(ProcessTag.current)-")
    var done = false
    defer {
      close(descriptor)
      if !done { unlink(path) }
    }
    guard budget.adopt(path) else { throw CacheError(.cancelled, "cancelled") }
    let rendered: Rendering
    do {
      rendered = try render(
        original: original, body: &body, info: info, spec: spec, into: descriptor,
        budget: budget)
    } catch let failure as VipsFailure {
      if budget.killed && !budget.isAbandoned { throw budget.overBudget }
      throw CacheError(
        .cannotDerive, "cannot derive a variant: \(failure.what): \(failure.message)")
    }
    guard let size = FileIO.sizes(of: path)?.size, size > 0 else {
      throw CacheError(.cannotDerive, "cannot derive a variant: libvips wrote nothing")
    }
    // A waiter that gave up has removed the file (or will not take it): nothing to keep.
    guard !budget.isAbandoned else { throw CacheError(.cancelled, "cancelled") }
    done = true
    var variant = DerivedVariant(
      path: path, width: rendered.width, height: rendered.height, format: rendered.format,
      size: size)
    variant.madeDirectly = rendered.direct
    variant.madePlanar = rendered.planar
    return variant
  }

  /// Sniffs the original and checks its format and the size its headers declare.
  func check(original: String) throws -> ImageInfo {
    guard let info = ImageSniffer.sniff(path: original) else {
      throw CacheError(.cannotDerive, "cannot derive a variant: the original is not an image")
    }
    if let why = Self.refusals[info.format] {
      throw CacheError(.cannotDerive, "cannot derive a variant from \(info.format.name): \(why)")
    }
    guard let width = info.width, let height = info.height, width > 0, height > 0 else {
      throw CacheError(
        .cannotDerive, "cannot derive a variant: the original's headers give no width or height")
    }
    try checkPixels(width: width, height: height, frames: 1)
    return info
  }

  /// Checks the JPEG original's scan count (from its bytes in `body` when read, else its file)
  /// against ``DerivationLimits/maxScans``.
  func checkScans(original: String, body: [UInt8]?) throws {
    let scans =
      body.map(JPEGParser.scanCount(bytes:))
      ?? JPEGParser.scanCount(path: original, limit: limits.maxScans)
    if let scans, scans > limits.maxScans {
      throw CacheError(
        .cannotDerive,
        "cannot derive a variant: the original JPEG has more than \(limits.maxScans) scans "
          + "(max_scans); each costs a pass over every block")
    }
  }

  /// Throws ``CacheError/Kind/tooLarge`` when `frames` of `width` × `height` are over a limit;
  /// `image` names the image in the message (the original, or the variant it would make).
  func checkPixels(width: Int, height: Int, frames: Int, of image: String = "the original") throws {
    if frames > limits.maxFrames {
      throw CacheError(
        .tooLarge,
        "\(image) has \(frames) frames, over the limit of \(limits.maxFrames) (max_frames)")
    }
    let (area, overflow) = Int64(width).multipliedReportingOverflow(by: Int64(height))
    let (pixels, overflowFrames) = area.multipliedReportingOverflow(by: Int64(frames))
    guard overflow || overflowFrames || pixels > limits.maxPixels else { return }
    let what = frames == 1 ? "" : "\(frames) frames of "
    throw CacheError(
      .tooLarge,
      "\(image) is \(what)\(width)x\(height) pixels (\(Self.megapixels(pixels, overflow || overflowFrames))), "
        + "over the limit of \(Self.megapixels(limits.maxPixels, false)) (max_pixels)")
  }

  /// `pixels` in megapixels, as a person reads it: `3600 MP`, `0.5 MP`.
  static func megapixels(_ pixels: Int64, _ overflow: Bool) -> String {
    overflow ? "more than 9e12 MP" : Printf.general(Double(pixels) / 1_000_000, digits: 4) + " MP"
  }
}

extension ImageFormat {
  /// The format's name in a sentence: `an SVG original`.
  var name: String {
    switch self {
    case .svg: "an SVG original"
    case .pdf: "a PDF original"
    case .jxl: "a JPEG XL original"
    case .bmp: "a BMP original"
    case .ico: "an ICO original"
    default: "a \(rawValue.uppercased()) original"
    }
  }
}
