import CVips
import FoundationEssentials

/// What a rendering produced.
struct Rendering {
  var width: Int
  var height: Int
  var format: ImageFormat
  /// Whether the direct JPEG path made it (else libvips).
  var direct = false
  /// Whether the direct path's planar way made it, never leaving YCbCr.
  var planar = false
}

/// The libvips side of a derivation: the header read, the thumbnail, a compass crop, the save.
extension Deriver {
  /// Renders `spec` of the original at `original` (sniffed as `info`) into `descriptor`: by the
  /// direct JPEG path when it takes the image (its bytes in `body`, let go of before libvips
  /// starts), else through libvips.
  func render(
    original: String, body: inout [UInt8]?, info: ImageInfo, spec: VariantSpec,
    into descriptor: Int32, budget: DerivationBudget
  ) throws -> Rendering {
    if let bytes = body.take(),
      let rendering = try renderDirect(
        body: bytes, info: info, spec: spec, into: descriptor, budget: budget)
    {
      return rendering
    }
    let vips = try VipsLibrary.loaded()
    vips.forgetWarnings()
    // libvips keeps per-thread buffers for threads it did not create; freed here.
    defer { vips.endThread() }
    return try render(
      vips, original: original, info: info, spec: spec, into: descriptor, budget: budget)
  }

  /// Renders `spec` of the original at `original` (sniffed as `info`) into `descriptor` with
  /// libvips.
  func render(
    _ vips: VipsLibrary, original: String, info: ImageInfo, spec: VariantSpec,
    into descriptor: Int32, budget: DerivationBudget
  ) throws -> Rendering {
    // Loader options ride on the name in brackets, always there, so a `[` in the path is
    // never read as options. Every frame is loaded only for an animation kept as one.
    let loadsFrames = spec.keepsFrames && [.gif, .webp].contains(info.format)
    let name = original + (loadsFrames ? "[fail_on=error,n=-1]" : "[fail_on=error]")
    let header = try VipsImageReference.open(vips, "reading the original's header", name)
    // The loader's own idea of the size, checked too: a file the sniffer and libvips read
    // differently is still bounded.
    let frames = loadsFrames ? max(1, header.pageCount) : 1
    try checkPixels(width: header.width, height: header.pageHeight, frames: frames)
    if frames > 1, spec.geometry?.fit == .cover {
      throw CacheError(
        .cannotDerive,
        "cannot derive a variant: a cropped (^) variant of an animation is not supported; "
          + "drop animated or the ^")
    }
    let format = try outputFormat(spec: spec, original: info.format, hasAlpha: header.hasAlpha)
    var (width, height) = (header.width, header.pageHeight)
    if !spec.noRotate, header.orientationSwapsSides { swap(&width, &height) }
    let plan = ThumbnailPlan(spec: spec, originalWidth: width, originalHeight: height)
    // The variant's own size is bounded too, before anything is decoded: an enlargement (or a
    // shared preset) may ask for more pixels than any original may have.
    let output = ThumbnailPlan.outputSize(spec: spec, width: width, height: height)
    try checkPixels(width: output.width, height: output.height, frames: frames, of: "the variant")
    // Pixels go to sRGB through the embedded profile unless the profile is kept with them
    // (a CMYK image cannot keep its pixels in a web format, so it is converted anyway).
    let profile = header.hasProfile && (!spec.keepMetadata || header.isCMYK) ? "srgb" : nil
    let image = try VipsImageReference.make(vips, "decoding and resizing the original") { output in
      withOptionalCString(profile) { profile in
        imgcache_vips_thumbnail(
          vips.api, name, output, Int32(plan.width), Int32(plan.height), plan.size, plan.crop,
          spec.noRotate ? 1 : 0, profile)
      }
    }
    return try save(
      vips, image: image, spec: spec, plan: plan, format: format, frames: frames,
      into: descriptor, budget: budget)
  }

  /// Crops `image` at the plan's compass point, flattens it for JPEG, and saves it into
  /// `descriptor` as `format`, watched by `budget`.
  private func save(
    _ vips: VipsLibrary, image thumbnail: VipsImageReference, spec: VariantSpec,
    plan: ThumbnailPlan, format: ImageFormat, frames: Int, into descriptor: Int32,
    budget: DerivationBudget
  ) throws -> Rendering {
    var image = thumbnail
    if let direction = plan.compass, let box = spec.geometry, let boxWidth = box.width,
      let boxHeight = box.height
    {
      let (cropWidth, cropHeight) = (min(boxWidth, image.width), min(boxHeight, image.height))
      image = try VipsImageReference.make(vips, "cropping") { output in
        imgcache_vips_gravity(
          vips.api, image.pointer, output, direction, Int32(cropWidth), Int32(cropHeight))
      }
    }
    if format == .jpeg, image.hasAlpha {
      image = try VipsImageReference.make(vips, "flattening the alpha channel") { output in
        imgcache_vips_flatten_white(vips.api, image.pointer, output)
      }
    }
    let saver = Self.savers[format] ?? IMGCACHE_SAVER_PNG
    // The pixels are decoded, resized and written as the saver pulls them: watched here.
    imgcache_vips_watch(vips.api, image.pointer, budget.budget)
    let status = imgcache_vips_save(
      vips.api, image.pointer, descriptor, saver, Int32(spec.quality(for: format) ?? 0),
      spec.keepMetadata ? 0 : 1)
    guard status == 0 else {
      // Pixels are decoded as they are written: a damaged original fails here.
      throw VipsFailure(
        what: "decoding the original and writing \(format.rawValue.uppercased())",
        message: vips.takeError())
    }
    let pageHeight = frames > 1 ? image.pageHeight : image.height
    return Rendering(width: image.width, height: pageHeight, format: format)
  }

  /// The format written for `spec` from an original in `original`: `same` falls back from
  /// AVIF to PNG or JPEG when this libvips cannot write AVIF; asking for AVIF then fails.
  func outputFormat(spec: VariantSpec, original: ImageFormat, hasAlpha: Bool) throws -> ImageFormat
  {
    let format = spec.format.resolved(original: original, hasAlpha: hasAlpha)
    guard format == .avif, !VipsLibrary.writesAVIF else { return format }
    guard spec.format == .same else {
      throw CacheError(
        .cannotDerive,
        "cannot derive a variant: this libvips cannot write AVIF (its libheif has no AV1 "
          + "encoder); choose webp or jpeg")
    }
    return hasAlpha ? .png : .jpeg
  }

  /// The saver of each output format.
  static let savers: [ImageFormat: imgcache_vips_saver] = [
    .jpeg: IMGCACHE_SAVER_JPEG, .png: IMGCACHE_SAVER_PNG, .webp: IMGCACHE_SAVER_WEBP,
    .avif: IMGCACHE_SAVER_AVIF, .gif: IMGCACHE_SAVER_GIF,
  ]
}

/// The arguments of one `vips_thumbnail` call, and the compass crop that follows it.
package struct ThumbnailPlan {
  /// libvips' largest coordinate (`VIPS_MAX_COORD`): a side given it is free.
  static let freeSide = 10_000_000
  /// The box's width and height for libvips (``freeSide`` leaves a side free).
  var width: Int
  var height: Int
  /// Shrink only (`DOWN`), both ways (`BOTH`), or aspect ignored (`FORCE`).
  var size: imgcache_vips_size
  /// libvips' crop: none, centre, attention or entropy.
  var crop: imgcache_vips_interesting
  /// Where to crop after a cover resize, for a side or corner (libvips' thumbnail crops only
  /// at the centre or by interest).
  var compass: imgcache_vips_direction?

  /// The plan for `spec` of an original of `originalWidth` × `originalHeight`, as seen
  /// upright when the orientation is applied.
  package init(spec: VariantSpec, originalWidth: Int, originalHeight: Int) {
    let free = Self.freeSide
    let upOrDown = spec.enlarge ? IMGCACHE_SIZE_BOTH : IMGCACHE_SIZE_DOWN
    (width, height, size, crop, compass) = (
      free, free, IMGCACHE_SIZE_DOWN, IMGCACHE_INTERESTING_NONE, nil
    )
    guard let geometry = spec.geometry else { return }
    switch geometry.fit {
    case .inside:
      (width, height, size) = (geometry.width ?? free, geometry.height ?? free, upOrDown)
    case .fill:
      let boxWidth = geometry.width ?? originalWidth
      let boxHeight = geometry.height ?? originalHeight
      width = spec.enlarge ? boxWidth : min(boxWidth, originalWidth)
      height = spec.enlarge ? boxHeight : min(boxHeight, originalHeight)
      size = IMGCACHE_SIZE_FORCE
    case .cover:
      let boxWidth = geometry.width ?? free
      let boxHeight = geometry.height ?? free
      size = upOrDown
      if let interest = Self.interest[spec.gravity] {
        (width, height, crop) = (boxWidth, boxHeight, interest)
      } else {
        // Scale so the box is covered: the side that scales least decides.
        let widthDecides =
          Int64(boxWidth) * Int64(originalHeight) >= Int64(boxHeight) * Int64(originalWidth)
        (width, height) = widthDecides ? (boxWidth, free) : (free, boxHeight)
        compass = Self.directions[spec.gravity]
      }
    }
  }

  /// The size of the variant `spec` makes of an upright original of `width` × `height`, as
  /// libvips' thumbnail gives it (rounded up): what `max_pixels` bounds before decoding.
  package static func outputSize(spec: VariantSpec, width: Int, height: Int) -> (
    width: Int, height: Int
  ) {
    guard let box = spec.geometry, width > 0, height > 0 else { return (width, height) }
    let (originalWidth, originalHeight) = (Double(width), Double(height))
    let (boxWidth, boxHeight) = (box.width.map(Double.init), box.height.map(Double.init))
    let scale: Double
    switch box.fit {
    case .fill:
      let (fillWidth, fillHeight) = (boxWidth ?? originalWidth, boxHeight ?? originalHeight)
      return spec.enlarge
        ? (clamped(fillWidth), clamped(fillHeight))
        : (clamped(min(fillWidth, originalWidth)), clamped(min(fillHeight, originalHeight)))
    case .inside:
      scale = min(
        boxWidth.map { $0 / originalWidth } ?? .greatestFiniteMagnitude,
        boxHeight.map { $0 / originalHeight } ?? .greatestFiniteMagnitude)
    case .cover:
      scale = max(
        boxWidth.map { $0 / originalWidth } ?? 0, boxHeight.map { $0 / originalHeight } ?? 0)
    }
    let applied = spec.enlarge ? scale : min(scale, 1)
    var (outputWidth, outputHeight) = (originalWidth * applied, originalHeight * applied)
    if box.fit == .cover {
      outputWidth = min(outputWidth, boxWidth ?? outputWidth)
      outputHeight = min(outputHeight, boxHeight ?? outputHeight)
    }
    return (clamped(outputWidth), clamped(outputHeight))
  }

  /// A side in pixels, rounded up, at least 1 and at most libvips' largest coordinate.
  private static func clamped(_ side: Double) -> Int {
    guard side.isFinite else { return freeSide }
    return Int(min(max(side.rounded(.up), 1), Double(freeSide)))
  }

  private static let interest: [Gravity: imgcache_vips_interesting] = [
    .centre: IMGCACHE_INTERESTING_CENTRE, .attention: IMGCACHE_INTERESTING_ATTENTION,
    .entropy: IMGCACHE_INTERESTING_ENTROPY,
  ]

  private static let directions: [Gravity: imgcache_vips_direction] = [
    .north: IMGCACHE_DIRECTION_NORTH, .south: IMGCACHE_DIRECTION_SOUTH,
    .east: IMGCACHE_DIRECTION_EAST, .west: IMGCACHE_DIRECTION_WEST,
    .northeast: IMGCACHE_DIRECTION_NORTH_EAST, .northwest: IMGCACHE_DIRECTION_NORTH_WEST,
    .southeast: IMGCACHE_DIRECTION_SOUTH_EAST, .southwest: IMGCACHE_DIRECTION_SOUTH_WEST,
  ]
}

/// Calls `body` with `text` as a C string, or with nil.
private func withOptionalCString<Result>(
  _ text: String?, _ body: (UnsafePointer<CChar>?) -> Result
) -> Result {
  guard let text else { return body(nil) }
  return text.withCString { body($0) }
}
