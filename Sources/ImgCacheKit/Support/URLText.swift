/// Parts of a URL's text, read without parsing the whole URL (per transfer and per row).
enum URLText {
  /// `host[:port]`, lowercased, without userinfo: the per-host limits of the downloader and
  /// `size --by host` group by it. Empty when the text has no `scheme://`.
  static func host(of url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return "" }
    let rest = url[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    return String(authority.split(separator: "@").last ?? "").lowercased()
  }
}
