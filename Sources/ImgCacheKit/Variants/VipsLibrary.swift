import CVips
import FoundationEssentials
import Glibc
import Synchronization

/// libvips, loaded and started on first use, once for the process (docs/architecture.md,
/// Layers: why it is loaded with dlopen): no operation cache, loaders marked untrusted blocked (SVG, PDF, JPEG XL,
/// ImageMagick's), warnings silenced. Its error buffer is global to the process, so it is read
/// and cleared under a lock.
// @unchecked: C function pointers and libvips' global state, set once at start; its error
// buffer is read under a lock the compiler cannot see.
struct VipsLibrary: @unchecked Sendable {
  // @unchecked: `api` points at a table written once, before any reader sees it, and never
  // changed or freed afterwards; libvips may be called from any thread once started.

  /// The table the shim calls through.
  let api: UnsafePointer<imgcache_vips>

  /// The process's libvips, or why it could not be loaded (then every derivation fails with
  /// that message and the cache still works). A static's initialiser runs once, whoever asks
  /// first, so libvips is started once.
  private static let shared: Result<VipsLibrary, CacheError> = load()

  /// The process's libvips; throws ``CacheError/Kind/cannotDerive`` when it cannot be loaded.
  static func loaded() throws -> VipsLibrary { try shared.get() }

  private static func load() -> Result<VipsLibrary, CacheError> {
    let table = UnsafeMutablePointer<imgcache_vips>.allocate(capacity: 1)
    table.initialize(to: imgcache_vips())
    var reason = [CChar](repeating: 0, count: 256)
    guard imgcache_vips_load(table, &reason, reason.count, noteVipsLog) != 0 else {
      table.deallocate()
      let text = String(
        decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(
        CacheError(.cannotDerive, "cannot load libvips (install libvips42): \(text)"))
    }
    return .success(VipsLibrary(api: UnsafePointer(table)))
  }

  /// Guards the reading and clearing of libvips' error buffer; held only around that call.
  private static let errorBuffer = Mutex(())

  /// The last warning libvips logged on each thread (a loader's reason for refusing a file,
  /// such as libpng's "Invalid color type in IHDR", often reaches only the log), by thread.
  private static let warnings = Mutex<[UInt: String]>([:])

  /// Keeps `message`, logged on the calling thread (``noteVipsLog``).
  fileprivate static func noteWarning(_ message: String) {
    let thread = UInt(pthread_self())
    warnings.withLock { warnings in
      if warnings.count >= 256 { warnings.removeAll() }
      warnings[thread] = message
    }
  }

  /// Forgets what libvips logged on the calling thread (before a derivation starts).
  func forgetWarnings() {
    let thread = UInt(pthread_self())
    _ = Self.warnings.withLock { $0.removeValue(forKey: thread) }
  }

  /// What libvips reported since it was last asked, as one line (its lines joined by `; `,
  /// control characters dropped, at most 300 characters), and the buffer cleared; when the
  /// buffer holds nothing, the last warning it logged on this thread; "unknown error" when
  /// there is neither.
  func takeError() -> String {
    let text: String? = Self.errorBuffer.withLock { _ in
      guard let copy = imgcache_vips_take_error(api) else { return nil }
      defer { imgcache_vips_free(api, copy) }
      return String(cString: copy)
    }
    let thread = UInt(pthread_self())
    let warning = Self.warnings.withLock { $0.removeValue(forKey: thread) }
    let reported = (text ?? "").isEmpty ? (warning ?? "") : (text ?? "")
    let lines = reported.split(whereSeparator: \.isNewline)
      .map { String($0.unicodeScalars.filter { !$0.isControlOrLineBreak }) }
      .filter { !$0.isEmpty }
    let line = lines.joined(separator: "; ")
    return line.isEmpty ? "unknown error" : String(line.prefix(300))
  }

  /// Sets how many threads libvips runs for one derivation (1…64), for the whole process.
  func setConcurrency(_ threads: Int) {
    imgcache_vips_set_concurrency(api, Int32(max(1, min(64, threads))))
  }

  /// Frees what libvips keeps for the calling thread, which libvips did not create.
  func endThread() { imgcache_vips_thread_shutdown(api) }

  /// Whether libvips runs ORC's run-time SIMD code (nil: it cannot say): never, once loaded.
  package static var runsVectorCode: Bool? {
    guard let library = try? loaded() else { return nil }
    let enabled = imgcache_vips_vector_enabled(library.api)
    return enabled < 0 ? nil : enabled != 0
  }

  /// Whether this libvips can write AVIF (its heifsave; Debian's libheif encodes AV1).
  static let writesAVIF: Bool = {
    guard let library = try? loaded() else { return false }
    return imgcache_vips_has_operation(library.api, "heifsave_target") != 0
  }()
}

/// One reference to a libvips image, released with this object.
final class VipsImageReference {
  let pointer: OpaquePointer
  private let library: VipsLibrary

  init(_ pointer: OpaquePointer, _ library: VipsLibrary) {
    self.pointer = pointer
    self.library = library
  }

  deinit { imgcache_vips_unref(library.api, pointer) }

  /// The width in pixels.
  var width: Int { Int(imgcache_vips_width(library.api, pointer)) }
  /// The height in pixels: of all pages stacked, for an animated image.
  var height: Int { Int(imgcache_vips_height(library.api, pointer)) }
  /// The height of one page (frame).
  var pageHeight: Int { Int(imgcache_vips_page_height(library.api, pointer)) }
  /// The number of pages (frames) in the file, whether loaded or not.
  var pageCount: Int { Int(imgcache_vips_page_count(library.api, pointer)) }
  /// Whether the image has an alpha channel.
  var hasAlpha: Bool { imgcache_vips_has_alpha(library.api, pointer) != 0 }
  /// Whether an ICC profile is attached.
  var hasProfile: Bool { imgcache_vips_has_profile(library.api, pointer) != 0 }
  /// Whether the EXIF orientation turns the image a quarter (width and height swap).
  var orientationSwapsSides: Bool { imgcache_vips_orientation_swaps(library.api, pointer) != 0 }
  /// The EXIF orientation, 1 (upright, or none) to 8.
  var orientation: Int { Int(imgcache_vips_orientation(library.api, pointer)) }
  /// Whether the pixels are CMYK.
  var isCMYK: Bool { imgcache_vips_is_cmyk(library.api, pointer) != 0 }

  /// The header of the image file `name` (loader options may follow in brackets), read
  /// without decoding pixels; throws with libvips' error, as `what` failed.
  static func open(
    _ library: VipsLibrary, _ what: String, _ name: String
  ) throws -> VipsImageReference {
    guard let image = imgcache_vips_open_header(library.api, name) else {
      throw VipsFailure(what: what, message: library.takeError())
    }
    return VipsImageReference(image, library)
  }

  /// Runs `operation`, which makes a new image, and returns it; throws with libvips' error,
  /// as `what` failed, when it fails.
  static func make(
    _ library: VipsLibrary, _ what: String,
    _ operation: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
  ) throws -> VipsImageReference {
    var output: OpaquePointer?
    let status = operation(&output)
    guard status == 0, let output else {
      if let output { imgcache_vips_unref(library.api, output) }
      throw VipsFailure(what: what, message: library.takeError())
    }
    return VipsImageReference(output, library)
  }
}

/// A libvips call that failed: what was being done and what libvips said.
struct VipsFailure: Error {
  var what: String
  var message: String
}

/// libvips' log handler: a warning is kept for the thread that logged it (``VipsLibrary``),
/// never printed.
private let noteVipsLog: imgcache_log_function = { _, _, message, _ in
  guard let message else { return }
  VipsLibrary.noteWarning(String(cString: message))
}
