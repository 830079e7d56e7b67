import Foundation

/// The remote tier in the pipeline: asked after the local tiers for a plain miss, written
/// back after an origin download.
extension Fetcher {
  /// The remote hits among `keys` (each with the URL asked for it): only for a plain lookup
  /// (`--offline` never touches the network; `--reload` and `--refresh` want the origin).
  func remoteHits(keys: [String], urls: [String: String], options: FetchOptions) async
    -> [String: CacheHit]
  {
    guard let remote, options.useRemote, options.mode == .normal, !keys.isEmpty else {
      return [:]
    }
    let hits = await remote.lookup(
      keys: keys, urls: urls, acceptAnyBody: options.acceptAnyBody,
      maxSize: transfer.maxBodySize)
    // The lookup counted these as misses of the local tiers: they were hits after all.
    if !hits.isEmpty { cache.note([.misses: -Int64(hits.count)]) }
    return hits
  }

  /// Writes a downloaded body back to the writable remotes, unless it is not for sharing: a
  /// request with credentials, cookies or its own headers (the body may be one user's), or a
  /// response marked `private` or `no-store`.
  func writeBack(_ outcome: FetchOutcome, download: Download, options: FetchOptions) async {
    guard let remote, options.useRemote, download.request.credentials == nil,
      transfer.credentials == nil, !transfer.useNetrc, transfer.cookieJar == nil,
      transfer.headers.isEmpty
    else { return }
    switch outcome {
    case .downloaded(let entry, let path), .revalidated(let entry, let path):
      let directives = CacheDirectives(entry.freshness.cacheControl)
      if directives.isPrivate || directives.noStore { return }
      _ = try? await Blocking.run { remote.writeBack(entry, path: path) }
    default: break
    }
  }
}
