import FoundationEssentials

/// The remote tier in the pipeline: asked after the local tiers for a plain miss, written
/// back after an origin download.
extension Fetcher {
  /// The remote hits among `keys` (each with the URL asked for it): only for a plain lookup
  /// (`--offline` never touches the network; `--reload` and `--refresh` want the origin).
  func remoteHits(
    keys: [String], urls: [String: String], options: FetchOptions,
    check: RemoteTier.ObjectCheck? = nil
  ) async -> [String: CacheHit] {
    guard let remote, options.useRemote, options.mode == .normal, !keys.isEmpty else {
      return [:]
    }
    // `--any` is for originals: a variant is always an image of its spec.
    return await remote.lookup(
      keys: keys, urls: urls, acceptAnyBody: options.acceptAnyBody && check == nil,
      maxSize: transfer.maxBodySize, check: check)
  }

  /// Whether what `request` receives could be anyone's: no credentials (in the URL, `-u`,
  /// `--netrc`), no cookie jar, no headers of its own. Recorded with the entry
  /// (``CacheEntry/shareable``) for ``RemoteTier/isShareable(_:)``, the rule of write-back and
  /// `remote push` alike.
  func isShareable(_ request: RequestURL) -> Bool {
    request.credentials == nil && transfer.credentials == nil && !transfer.useNetrc
      && transfer.cookieJar == nil && transfer.headers.isEmpty
  }

  /// Whether a stored download goes on to the write-back stage: there is a remote tier and
  /// `options` use it.
  func writesBack(_ options: FetchOptions) -> Bool { remote != nil && options.useRemote }

  /// Writes a downloaded body back to the writable remotes when ``RemoteTier/isShareable(_:)``
  /// says it is for sharing.
  func writeBack(
    _ outcome: FetchOutcome, options: FetchOptions, source: VariantSource? = nil
  ) async {
    guard let remote, writesBack(options) else { return }
    switch outcome {
    case .downloaded(let entry, let path), .revalidated(let entry, let path):
      _ = try? await Blocking.run { remote.writeBack(entry, path: path, source: source) }
    default: break
    }
  }
}
