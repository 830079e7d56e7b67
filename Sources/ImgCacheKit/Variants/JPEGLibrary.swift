import CJpeg
import FoundationEssentials

/// libjpeg-turbo and libyuv, loaded on first use, once for the process: the direct JPEG path
/// (docs/design.md, Variants). When either cannot be loaded every JPEG goes through libvips.
// @unchecked: C function pointers, set once before any reader sees them, never changed.
struct JPEGLibrary: @unchecked Sendable {
  /// The table the shim calls through.
  let api: UnsafePointer<imgcache_jpeg>

  /// The process's libraries, or nil when they cannot be loaded (then libvips does the work).
  static let shared: JPEGLibrary? = {
    let table = UnsafeMutablePointer<imgcache_jpeg>.allocate(capacity: 1)
    table.initialize(to: imgcache_jpeg())
    var reason = [CChar](repeating: 0, count: 256)
    guard imgcache_jpeg_load(table, &reason, reason.count) != 0 else {
      table.deallocate()
      return nil
    }
    return JPEGLibrary(api: UnsafePointer(table))
  }()

  /// How a job ended.
  enum Outcome: Equatable {
    /// Written to the descriptor.
    case written
    /// Not for this path, or libjpeg objected: nothing written; libvips decides.
    case declined
    /// Stopped by the budget: nothing written.
    case stopped
    /// The variant could not be written: the `errno`.
    case failed(Int32)
  }

  /// Runs `job` (the shim's `imgcache_jpeg_thumbnail`).
  func run(_ job: inout imgcache_jpeg_job) -> Outcome {
    let status = imgcache_jpeg_thumbnail(api, &job)
    switch imgcache_jpeg_status(rawValue: UInt32(bitPattern: status)) {
    case IMGCACHE_JPEG_DONE: return .written
    case IMGCACHE_JPEG_STOPPED: return .stopped
    case IMGCACHE_JPEG_FAILED: return .failed(job.error)
    default: return .declined
    }
  }
}
