import CCurl
import FoundationEssentials
import Glibc

/// How a finished transfer becomes a response or a classified error.
extension CurlTransfer {
  /// Turns curl's result into a response or a classified error; the file passes to the caller
  /// on success and is deleted on failure before this returns.
  func finish(_ code: CURLcode) -> Result<DownloadResponse, CacheError> {
    let result = outcome(code)
    if case .failure = result { discardFile() }
    return result
  }

  /// What `result` says of the transfer's host, for its politeness (``HostScheduler``): a 429
  /// or 503 throttles it, with the wait its `Retry-After` asks for; any other status answers.
  func ending(of result: Result<DownloadResponse, CacheError>) -> HostScheduler.Ending {
    guard case .failure(let error) = result else { return .answered }
    if error.kind == .httpStatus, let code = error.httpStatus, code == 429 || code == 503 {
      let wait = responseHeaders["retry-after"].flatMap { RetryAfter.seconds($0, now: Date()) }
      return .throttled(status: code, retryAfter: wait)
    }
    return status > 0 ? .answered : .unanswered
  }

  private func outcome(_ code: CURLcode) -> Result<DownloadResponse, CacheError> {
    var responseCode = 0
    imgcache_getinfo_long(api, handle, CURLINFO_RESPONSE_CODE, &responseCode)
    if responseCode != 0 { status = responseCode }
    var effective: UnsafeMutablePointer<CChar>?
    imgcache_getinfo_string(api, handle, CURLINFO_EFFECTIVE_URL, &effective)
    let effectiveURL = effective.map { String(cString: $0) } ?? request.url
    // A body cut on purpose (``truncated``) stopped with a write error: it is the response.
    guard code == CURLE_OK || (truncated && abortReason == nil && code == CURLE_WRITE_ERROR) else {
      let detail = String(cString: errorBuffer)
      return .failure(abortReason ?? Self.error(for: code, detail: detail, url: request.url))
    }
    let conditional = request.etag != nil || request.lastModified != nil
    if status == 304 && conditional {
      discardFile()
      return .success(
        DownloadResponse(
          status: 304, file: nil, bytes: 0, contentType: contentType, etag: etag,
          lastModified: lastModified, effectiveURL: effectiveURL, sha256: nil,
          freshness: responseFreshness))
    }
    guard (200..<300).contains(status) else {
      return .failure(Self.statusError(status, url: request.url))
    }
    if file == nil && !bodyInMemory {
      // Not a byte came, so `receive` never decided where the body goes: a 206 must still
      // prove it continues what was kept (an empty one cannot), and a 200 to a Range request
      // still drops the partial body it replaces.
      do {
        _ = try openBody()
      } catch let error as CacheError where error.kind == .protocolError {
        return .failure(error)
      } catch {
        return .failure(CacheError.io("cannot create the body file", error, url: request.url))
      }
    }
    let (sha256, whole) = finishHash()
    // A body that fit in memory (an empty one too) is handed over without a file, which the
    // pipeline writes off this thread; a larger one is in its file, closed now.
    let path = file?.path
    if let body = file {
      close(body.descriptor)
      file = nil
    }
    var response = DownloadResponse(
      status: status, file: path, bytes: bytes, contentType: contentType, etag: etag,
      lastModified: lastModified, effectiveURL: effectiveURL, sha256: sha256,
      freshness: responseFreshness)
    response.body = path == nil ? (whole ?? Data()) : whole
    return .success(response)
  }
}
