import CCurl
import Dispatch
import FoundationEssentials
import Glibc

/// What a transfer knows about resuming: the request's ``Resumable``; the headers of this
/// attempt's response that decide it (`Content-Length`, `Content-Range`, `Date`) are in
/// ``CurlTransfer/responseHeaders``.
struct ResumeState {
  var resumable: Resumable?
  var extraHeaders = [String]()
  /// Whether the open body file is a partial body to keep when the transfer fails.
  var keeping = false

  /// `Range` and `If-Range` when bytes are already there (RFC 9110 §13.1.5).
  var rangeHeaders: [String] {
    guard let resumable, resumable.offset > 0, let validator = resumable.validator else {
      return []
    }
    return ["Range: bytes=\(resumable.offset)-", "If-Range: \(validator)"]
  }
}

extension CurlTransfer {
  /// The response headers a transfer reads: the three of the entry, those that decide a
  /// resume, and those of freshness (RFC 9111).
  static let keptHeaders = HeaderLine.Names([
    "content-type", "etag", "last-modified", "content-length", "content-range", "date",
    "cache-control", "expires", "age", "content-encoding", "retry-after",
    "x-robots-tag",
  ])

  /// Before an attempt: a resumed body goes back to the bytes it started with (the same
  /// `Range` is asked again); when they are gone, the attempt starts over without a range.
  func prepareResume() {
    resume.keeping = false
    responseHeaders = [:]
    guard var resumable = resume.resumable else { return }
    if resumable.offset > 0 && truncate(resumable.path, off_t(resumable.offset)) != 0 {
      resumable.offset = 0
      resumable.validator = nil
      resume.resumable = resumable
      setHeaders(resume.extraHeaders)
    }
  }

  /// Opens the body file when the response is one to keep or to append to; nil for an
  /// ordinary temporary file. A 206 must continue exactly what was kept: its `Content-Range`
  /// from the kept length to the end of the length first announced, and a `Content-Length`
  /// (when sent) of that range; anything else restarts without a range.
  func openResumableFile() throws -> (path: String, descriptor: Int32)? {
    guard let resumable = resume.resumable else { return nil }
    if status == 206 {
      let range = ContentRange(responseHeaders["content-range"])
      let length = responseHeaders["content-length"]
      guard resumable.offset > 0, let range, let complete = range.complete,
        range.first == resumable.offset, range.last == complete - 1,
        complete == resumable.length,
        length == nil || HTTPFields.contentLength(length) == range.last - range.first + 1,
        !hasContentCoding
      else {
        throw CacheError(
          .protocolError,
          "the server's 206 does not continue the \(resumable.offset) bytes kept (Content-Range "
            + "'\(responseHeaders["content-range"] ?? "")')", url: request.url, httpStatus: 206)
      }
      let fd = open(resumable.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
      guard fd >= 0 else { throw CacheError.posix("cannot reopen", path: resumable.path) }
      try hashKeptBytes(resumable)
      bytes += resumable.offset
      resume.keeping = true
      return (resumable.path, fd)
    }
    // A full body (200): worth keeping when long enough, sent with a strong validator and
    // without a content coding (Range offsets count encoded bytes, the file holds decoded
    // ones). A body not kept replaces what an earlier run left: that goes now.
    guard let validator = strongValidator, let length = announcedLength,
      length >= resumable.minimumSize, !hasContentCoding
    else {
      // Only kept bytes can be there (the key's lock keeps other processes out).
      if resumable.offset > 0 { unlink(resumable.path) }
      return nil
    }
    let fd = open(
      resumable.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot create", path: resumable.path) }
    resume.keeping = true
    resumable.started(validator, length)
    return (resumable.path, fd)
  }

  /// Whether the body came with a content coding other than `identity`.
  private var hasContentCoding: Bool {
    guard let coding = responseHeaders["content-encoding"] else { return false }
    return coding.split(separator: ",").contains {
      $0.trimmingWhitespace().lowercased() != "identity"
    }
  }

  /// Whether a partial body is worth keeping after a failure: at least the minimum size.
  var keepsPartialBody: Bool {
    guard resume.keeping, let resumable = resume.resumable else { return false }
    return bytes >= max(1, resumable.minimumSize)
  }

  /// The ETag when strong, else a Last-Modified date that is strong: at least a second older
  /// than the response's Date (RFC 9110 §8.8.2.2). Never a weak `W/` ETag.
  private var strongValidator: String? {
    if let etag, !etag.hasPrefix("W/"), etag.hasPrefix("\"") { return etag }
    guard let lastModified, let date = responseHeaders["date"],
      let modified = HTTPDate.parse(lastModified), let sent = HTTPDate.parse(date),
      sent.timeIntervalSince(modified) >= 1
    else { return nil }
    return lastModified
  }

  private var announcedLength: Int64? {
    HTTPFields.contentLength(responseHeaders["content-length"])
  }

  /// Feeds the bytes already kept to the hash, so the SHA-256 covers the whole body.
  private func hashKeptBytes(_ resumable: Resumable) throws {
    let fd = open(resumable.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: resumable.path) }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var left = resumable.offset
    while left > 0 {
      let count = buffer.withUnsafeMutableBytes {
        read(fd, $0.baseAddress, min($0.count, Int(left)))
      }
      guard count > 0 else { throw CacheError.posix("cannot read", path: resumable.path) }
      let chunk = Data(buffer[..<count])
      SHA256Stream.queue.sync { chunk.withUnsafeBytes { hasher.update($0) } }
      left -= Int64(count)
    }
  }

  /// What the response said about reusing it, received now.
  var responseFreshness: ResponseFreshness {
    ResponseFreshness(
      cacheControl: responseHeaders["cache-control"], expires: responseHeaders["expires"],
      date: responseHeaders["date"], age: responseHeaders["age"], received: Date(),
      status: status == 206 ? 200 : status)
  }
}
