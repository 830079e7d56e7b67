import Foundation

/// Downloads that survive interruption (``PartialDownload``): a plain miss whose key lock this
/// process holds streams into `tmp/resume-<md5>`, recorded as soon as a body worth keeping
/// starts; the next fetch of the URL asks only for the rest.
extension Fetcher {
  /// The request for `download`; `resumable` when this process holds the key's lock (so no
  /// other process writes the same partial body).
  func downloadRequest(_ download: Download, resumable: Bool) -> DownloadRequest {
    var request = DownloadRequest(
      url: download.url, temporaryDirectory: cache.layout.tmpDirectory.path,
      etag: download.validators?.etag, lastModified: download.validators?.lastModified,
      credentials: download.request.credentials, sequence: download.sequence)
    guard resumable else { return request }
    let point = cache.resumePoint(key: download.key, url: download.url)
    let (cache, url, key) = (self.cache, download.url, download.key)
    request.resumable = Resumable(
      path: point.path, offset: point.offset, validator: point.validator, length: point.length,
      minimumSize: cache.resume.minimumSize,
      started: { validator, length in
        cache.recordPartial(url: url, key: key, validator: validator, contentLength: length)
      })
    return request
  }

  /// After a failed resumable transfer: a server that cannot resume (416, a 206 whose range or
  /// lengths differ from what was kept) means starting over at once; a permanent failure drops the
  /// partial body. Returns the new attempt's result, or nil when the failure stands.
  func restartWithoutRange(after error: CacheError, _ download: Download, _ options: FetchOptions)
    async -> FetchResult?
  {
    let kept = cache.layout.partialFile(forKey: download.key)
    var info = stat()
    let hasBody = lstat(kept, &info) == 0 && info.st_size > 0
    guard error.httpStatus == 416 || error.httpStatus == 206 else {
      // A body not kept (too short to be worth it) leaves no record either.
      if error.isPermanent || !hasBody { cache.discardPartial(key: download.key) }
      return nil
    }
    guard hasBody else { return nil }
    cache.discardPartial(key: download.key)
    let ticket = downloader.submit([downloadRequest(download, resumable: true)])[0]
    return await complete(
      ticket, download: download, options: options,
      fingerprint: fingerprint(options, download.request), resumed: false)
  }
}
