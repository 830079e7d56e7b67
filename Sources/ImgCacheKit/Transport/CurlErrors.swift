import CCurl
import FoundationEssentials

/// How a transfer's failure becomes a classified ``CacheError`` (docs/design.md, Command line: the
/// exit statuses).
extension CurlTransfer {
  static func statusError(_ status: Int, url: String) -> CacheError {
    if status == 401 || status == 407 {
      return CacheError(
        .auth, "authentication refused (HTTP \(status))", url: url, httpStatus: status)
    }
    return CacheError(.httpStatus, "HTTP \(status)", url: url, httpStatus: status)
  }

  /// Classifies a libcurl failure (reference §2.3's mapping); `detail` is libcurl's error
  /// buffer, which tells a malformed response (bad chunking, oversized headers) from a reset.
  static func error(for code: CURLcode, detail: String, url: String) -> CacheError {
    let text = detail.isEmpty ? CurlLibrary.describe(code) : detail
    switch code {
    case CURLE_UNSUPPORTED_PROTOCOL:
      return CacheError(
        .protocolError, "scheme not allowed (only http and https): \(text)", url: url)
    case CURLE_URL_MALFORMAT:
      return CacheError(.invalidInput, "malformed URL", url: url)
    case CURLE_TOO_MANY_REDIRECTS:
      return CacheError(.protocolError, "too many redirects", url: url)
    case CURLE_FILESIZE_EXCEEDED:
      return CacheError(.protocolError, "body exceeds the size limit", url: url)
    case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_RANGE_ERROR,
      CURLE_OUT_OF_MEMORY:
      // libcurl 7.88 reports a header line over its 100 KB limit as out of memory.
      return CacheError(.protocolError, "bad response: \(text)", url: url)
    case CURLE_RECV_ERROR where isMalformedResponse(text):
      return CacheError(.protocolError, "bad response: \(text)", url: url)
    case CURLE_LOGIN_DENIED:
      return CacheError(.auth, "login denied", url: url)
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
      CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
      CURLE_SSL_PINNEDPUBKEYNOTMATCH,
      CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_CRL_BADFILE:
      return CacheError(.tls, "TLS failure: \(text)", url: url)
    case CURLE_OPERATION_TIMEDOUT:
      return CacheError(.network, "timed out", url: url)
    case CURLE_ABORTED_BY_CALLBACK:
      return CacheError(.cancelled, "cancelled", url: url)
    default:
      return CacheError(.network, text, url: url)
    }
  }

  /// Whether libcurl's words for a receive error describe a malformed response rather than
  /// a failing connection.
  private static func isMalformedResponse(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return ["chunk", "header", "malformed", "invalid", "illegal"].contains {
      lowered.contains($0)
    }
  }
}
