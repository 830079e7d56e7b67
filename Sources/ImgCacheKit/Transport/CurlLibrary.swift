import CCurl
import FoundationEssentials
import Glibc

/// libcurl's entry points, loaded on first use rather than at start-up: the library drags in
/// some thirty shared libraries whose relocation would cost every command, including cache
/// hits, `size` and `list`, which never touch the network. Loaded once per process.
// @unchecked: C function pointers, written once before anyone reads them.
struct CurlLibrary: @unchecked Sendable {
  // @unchecked: `api` points at a table written once, before any reader sees it, and never
  // changed or freed afterwards; libcurl's own functions are safe to call from any thread on
  // distinct handles, as the downloader does.

  /// The table the shim calls through.
  let api: imgcache_api

  /// The process's libcurl, or why it could not be loaded (then every download fails with
  /// that message and the cache still works).
  static let shared: Result<CurlLibrary, CacheError> = load()

  /// libcurl's words for `code`.
  static func describe(_ code: CURLcode) -> String {
    guard case .success(let library) = shared else { return "libcurl error \(code.rawValue)" }
    return String(cString: imgcache_strerror(library.api, code))
  }

  private static func load() -> Result<CurlLibrary, CacheError> {
    let table = UnsafeMutablePointer<imgcache_curl>.allocate(capacity: 1)
    table.initialize(to: imgcache_curl())
    var reason = [CChar](repeating: 0, count: 256)
    guard imgcache_curl_load(table, &reason, reason.count) != 0 else {
      table.deallocate()
      let text = String(
        decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(
        CacheError(.network, "cannot load libcurl (install libcurl4): \(text)"))
    }
    // URLs reach libcurl as UTF-8 whatever the user's locale; its IDN conversion (libidn2)
    // reads host names in the character type of the locale, so that must be UTF-8 too.
    if setlocale(LC_CTYPE, "C.UTF-8") == nil { setlocale(LC_CTYPE, "") }
    guard imgcache_global_init(table, Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else {
      return .failure(CacheError(.network, "libcurl failed to initialise"))
    }
    return .success(CurlLibrary(api: UnsafePointer(table)))
  }
}
