import CZlib

/// zlib's entry points, loaded on first use (only a gzip-compressed table needs them), once
/// for the process.
// @unchecked: C function pointers, written once before anyone reads them.
struct ZlibLibrary: @unchecked Sendable {
  // @unchecked: `api` points at a table written once, before any reader sees it, and never
  // changed or freed; each stream is used by one reader at a time.

  /// The table the shim calls through.
  let api: UnsafePointer<imgcache_zlib>

  private static let shared: Result<ZlibLibrary, CacheError> = load()

  /// The process's zlib; `.localIO` when it cannot be loaded.
  static func loaded() throws -> ZlibLibrary { try shared.get() }

  private static func load() -> Result<ZlibLibrary, CacheError> {
    let table = UnsafeMutablePointer<imgcache_zlib>.allocate(capacity: 1)
    table.initialize(to: imgcache_zlib())
    var reason = [CChar](repeating: 0, count: 256)
    guard imgcache_zlib_load(table, &reason, reason.count) != 0 else {
      table.deallocate()
      let text = String(
        decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(CacheError(.localIO, "cannot load zlib (install zlib1g): \(text)"))
    }
    return .success(ZlibLibrary(api: UnsafePointer(table)))
  }
}
