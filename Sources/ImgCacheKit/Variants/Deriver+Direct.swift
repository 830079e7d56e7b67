import CJpeg
import CVips
import FoundationEssentials
import Glibc

/// The direct JPEG path (docs/design.md, Variants): a JPEG made from a JPEG with libjpeg-turbo
/// and libyuv, the sizes and crop libvips' thumbnail would give.
extension Deriver {
  /// The most one buffer of the direct path may take (the original's bytes, its decoded or
  /// resized pixels): 64 MiB, a 16-megapixel image after the DCT shrink. Larger goes through
  /// libvips, which streams.
  static let directBufferLimit = 64 << 20

  /// Renders `spec` of the original, its bytes in `body` (sniffed as `info`), into
  /// `descriptor` by the direct path; nil when the path is not for this image (not a JPEG made
  /// from a JPEG, a profile to convert, an orientation to apply, metadata to keep, a crop by
  /// interest, CMYK, a warning from libjpeg): libvips then renders it. Nothing of libvips is
  /// loaded here.
  func renderDirect(
    body: [UInt8], info: ImageInfo, spec: VariantSpec, into descriptor: Int32,
    budget: DerivationBudget
  ) throws -> Rendering? {
    guard usesDirectJPEG, info.format == .jpeg, !spec.keepMetadata,
      spec.format.resolved(original: .jpeg, hasAlpha: false) == .jpeg,
      let quality = spec.quality(for: .jpeg), let library = JPEGLibrary.shared,
      let layout = JPEGParser.layout(data: body), [1, 3].contains(layout.components),
      !layout.hasProfile, spec.noRotate || layout.orientation == 1
    else { return nil }
    try checkPixels(width: layout.width, height: layout.height, frames: 1)
    let plan = ThumbnailPlan(
      spec: spec, originalWidth: layout.width, originalHeight: layout.height)
    // The variant's own size is bounded as libvips' way bounds it.
    let output = ThumbnailPlan.outputSize(spec: spec, width: layout.width, height: layout.height)
    try checkPixels(width: output.width, height: output.height, frames: 1, of: "the variant")
    guard
      let direct = DirectJPEGPlan(
        plan: plan, box: spec.geometry, width: layout.width, height: layout.height)
    else { return nil }
    var job = imgcache_jpeg_job()
    job.descriptor = descriptor
    (job.source_width, job.source_height) = (Int32(layout.width), Int32(layout.height))
    (job.shrink, job.width, job.height) = (
      Int32(direct.shrink), Int32(direct.width), Int32(direct.height)
    )
    (job.crop_left, job.crop_top) = (Int32(direct.crop.left), Int32(direct.crop.top))
    (job.crop_width, job.crop_height) = (Int32(direct.crop.width), Int32(direct.crop.height))
    job.quality = Int32(quality)
    job.max_bytes = Self.directBufferLimit
    job.marker_bytes = layout.applicationBytes
    job.proceed = imgcache_vips_budget_proceed
    job.context = UnsafeMutableRawPointer(budget.budget)
    job.planar = usesPlanarJPEG ? 1 : 0
    let outcome = body.withUnsafeBufferPointer { bytes in
      (job.data, job.length) = (bytes.baseAddress, bytes.count)
      return library.run(&job)
    }
    switch outcome {
    case .written:
      return Rendering(
        width: direct.crop.width, height: direct.crop.height, format: .jpeg, direct: true,
        planar: job.planar != 0)
    case .declined: return nil
    case .stopped:
      throw VipsFailure(what: "decoding the original and writing JPEG", message: "stopped")
    case .failed(let code):
      let error = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
      throw CacheError(
        .localIO, "cannot write a variant: \(String(cString: strerror(code)))", underlying: error)
    }
  }
}

/// Where the direct path's pixels go: the DCT shrink, the whole image's size once resized, and
/// the crop of it written; the sizes and crop libvips' thumbnail and gravity would give.
package struct DirectJPEGPlan {
  /// libjpeg decodes at 1/`shrink` (1, 2, 4 or 8): the largest that leaves at least the
  /// resized size; what is left is a step under 2x.
  package var shrink: Int
  /// The whole image, resized.
  package var width: Int
  package var height: Int
  /// The part of it written.
  package var crop: (left: Int, top: Int, width: Int, height: Int)

  /// The plan for `plan` (and its compass crop in `box`) of an upright `width` × `height`
  /// JPEG; nil for a crop by interest (attention, entropy), which only libvips makes, and for
  /// a step of 2x or more after the DCT shrink (an original over 16 times the size asked).
  package init?(plan: ThumbnailPlan, box: ResizeGeometry?, width: Int, height: Int) {
    guard width > 0, height > 0,
      plan.crop == IMGCACHE_INTERESTING_NONE || plan.crop == IMGCACHE_INTERESTING_CENTRE
    else { return nil }
    // libvips shrinks on load only by a factor that leaves two for its resize, and computes
    // the resize from the shrunk size: its sizes come from its own factor.
    let common = Self.shrinks(plan: plan, width: width, height: height)
    let loadFactor = Self.vipsLoadFactor(min(common.horizontal, common.vertical))
    // (libvips rounds the shrunk size down.)
    let (loadedWidth, loadedHeight) = (max(1, width / loadFactor), max(1, height / loadFactor))
    let scale = Self.shrinks(plan: plan, width: loadedWidth, height: loadedHeight)
    let resized = (
      width: Self.side(Double(loadedWidth) / scale.horizontal),
      height: Self.side(Double(loadedHeight) / scale.vertical)
    )
    (self.width, self.height) = resized
    shrink =
      [8, 4, 2].first { factor in
        Self.divideUp(width, factor) >= resized.width
          && Self.divideUp(height, factor) >= resized.height
      } ?? 1
    // libyuv resizes colour bilinearly (2 taps): past a 2x step it would skip pixels. So the
    // step left after the DCT shrink stays under 2x, or libvips does the work.
    guard Self.divideUp(width, shrink) < 2 * resized.width,
      Self.divideUp(height, shrink) < 2 * resized.height
    else { return nil }
    crop = (0, 0, resized.width, resized.height)
    if plan.crop == IMGCACHE_INTERESTING_CENTRE {
      crop = Self.gravity(
        IMGCACHE_DIRECTION_CENTRE, width: resized.width, height: resized.height,
        box: (plan.width, plan.height))
    } else if let compass = plan.compass, let boxWidth = box?.width, let boxHeight = box?.height {
      crop = Self.gravity(
        compass, width: resized.width, height: resized.height, box: (boxWidth, boxHeight))
    }
  }

  /// libvips' `vips_thumbnail_calculate_shrink`: the shrink of each axis for `plan`.
  static func shrinks(plan: ThumbnailPlan, width: Int, height: Int) -> (
    horizontal: Double, vertical: Double
  ) {
    var horizontal = Double(width) / Double(plan.width)
    var vertical = Double(height) / Double(plan.height)
    let cropping = plan.crop != IMGCACHE_INTERESTING_NONE
    let byWidth = cropping ? horizontal < vertical : horizontal >= vertical
    if plan.size != IMGCACHE_SIZE_FORCE {
      if byWidth { vertical = horizontal } else { horizontal = vertical }
    }
    if plan.size == IMGCACHE_SIZE_UP {
      (horizontal, vertical) = (min(1, horizontal), min(1, vertical))
    } else if plan.size == IMGCACHE_SIZE_DOWN {
      (horizontal, vertical) = (max(1, horizontal), max(1, vertical))
    }
    return (min(horizontal, Double(width)), min(vertical, Double(height)))
  }

  /// libvips' JPEG shrink-on-load for an overall `shrink`: it leaves a factor of two for the
  /// resize.
  static func vipsLoadFactor(_ shrink: Double) -> Int {
    shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
  }

  /// `size` / `factor`, rounded up: libjpeg's size of a scaled decode.
  static func divideUp(_ size: Int, _ factor: Int) -> Int { (size + factor - 1) / factor }

  /// A resized side: rounded half up, at least 1.
  static func side(_ size: Double) -> Int {
    guard size.isFinite else { return 1 }
    return max(1, Int(min(size + 0.5, Double(ThumbnailPlan.freeSide))))
  }

  /// The crop of a `width` × `height` image to `box` placed at `direction` (libvips' gravity
  /// and its centre smartcrop).
  static func gravity(
    _ direction: imgcache_vips_direction, width: Int, height: Int, box: (Int, Int)
  ) -> (left: Int, top: Int, width: Int, height: Int) {
    let (cropWidth, cropHeight) = (min(box.0, width), min(box.1, height))
    let (spareWidth, spareHeight) = (width - cropWidth, height - cropHeight)
    let left: Int
    let top: Int
    switch direction {
    case IMGCACHE_DIRECTION_NORTH: (left, top) = (spareWidth / 2, 0)
    case IMGCACHE_DIRECTION_SOUTH: (left, top) = (spareWidth / 2, spareHeight)
    case IMGCACHE_DIRECTION_EAST: (left, top) = (spareWidth, spareHeight / 2)
    case IMGCACHE_DIRECTION_WEST: (left, top) = (0, spareHeight / 2)
    case IMGCACHE_DIRECTION_NORTH_EAST: (left, top) = (spareWidth, 0)
    case IMGCACHE_DIRECTION_NORTH_WEST: (left, top) = (0, 0)
    case IMGCACHE_DIRECTION_SOUTH_EAST: (left, top) = (spareWidth, spareHeight)
    case IMGCACHE_DIRECTION_SOUTH_WEST: (left, top) = (0, spareHeight)
    default: (left, top) = (spareWidth / 2, spareHeight / 2)
    }
    return (left, top, cropWidth, cropHeight)
  }
}
