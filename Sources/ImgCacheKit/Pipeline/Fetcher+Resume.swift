import FoundationEssentials
import Glibc

/// Downloads that survive interruption (``PartialDownload``): a plain miss whose key lock this
/// process holds streams into `tmp/resume-<md5>`, recorded as soon as a body worth keeping
/// starts; the next fetch of the URL asks only for the rest.
extension Fetcher {
  /// The request for `fetch` under `plan`; resumable when the fetch holds the key's lock (so no
  /// other process writes the same partial body).
  func downloadRequest(for fetch: Fetch, plan: Fetch.Plan) -> DownloadRequest {
    let url = fetch.request?.stripped ?? ""
    var request = DownloadRequest(
      url: url, temporaryDirectory: cache.layout.tmpPath,
      etag: plan.validators?.etag, lastModified: plan.validators?.lastModified,
      credentials: fetch.request?.credentials, sequence: plan.sequence)
    request.honoursRobotsTag = plan.robots != .ignored
    guard fetch.lock != nil else { return request }
    let point = cache.resumePoint(key: fetch.key, url: url)
    let (cache, key) = (self.cache, fetch.key)
    request.resumable = Resumable(
      path: point.path, offset: point.offset, validator: point.validator, length: point.length,
      minimumSize: cache.resume.minimumSize,
      started: { validator, length in
        cache.recordPartial(url: url, key: key, validator: validator, contentLength: length)
      })
    return request
  }

  /// What becomes of a partial body after a resumable transfer failed.
  enum PartialFate: Equatable {
    /// Kept for the next attempt (a transient failure).
    case kept
    /// Dropped (a permanent failure, or nothing worth keeping was received).
    case dropped
    /// Dropped, and the download starts over at once: the server cannot resume it (416, or a
    /// 206 whose range or lengths differ from what was kept).
    case restart
  }

  /// Decides (and carries out) what happens to `key`'s partial body after `error`.
  func keepsPartial(after error: CacheError, key: String) -> PartialFate {
    let kept = cache.layout.partialFile(forKey: key)
    var info = stat()
    let hasBody = lstat(kept, &info) == 0 && info.st_size > 0
    guard error.httpStatus == 416 || error.httpStatus == 206 else {
      // A body not kept (too short to be worth it) leaves no record either.
      // An opt-out (X-Robots-Tag) keeps nothing of the body it refused.
      guard error.isPermanent || error.kind == .disallowed || !hasBody else { return .kept }
      cache.discardPartial(key: key)
      return .dropped
    }
    guard hasBody else { return .kept }
    cache.discardPartial(key: key)
    return .restart
  }
}
