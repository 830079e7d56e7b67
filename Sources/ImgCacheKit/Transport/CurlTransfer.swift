import CCurl
import Dispatch
import FoundationEssentials

/// One easy handle and the state of its transfer: the body streams into a temporary file (and
/// through SHA-256), headers are parsed as they arrive, limits are enforced while receiving.
/// Not `Sendable`: created, driven and released on the downloader's loop thread.
final class CurlTransfer {
  let id: UInt64
  let request: DownloadRequest
  let handle: UnsafeMutableRawPointer
  let api: imgcache_api
  let host: String
  var attempt = 0
  let maxBodySize: Int64
  private let idleNanoseconds: UInt64
  let hasher = SHA256Stream()
  /// Received bytes not yet handed to the hashing queue (handed over 256 KiB at a time): a
  /// small body stays here whole, and is hashed (and later sniffed) where it was received.
  var pendingHash = Data()
  /// Whether the body so far is in `pendingHash` only, with no file: a body that fits
  /// ``memoryLimit`` is handed over in memory, and its file is written off this thread.
  var bodyInMemory = false
  /// Whether work for `hasher` may still wait on the hashing queue (then it is touched there
  /// only, until a `sync` on the queue).
  var hashInFlight = false
  /// libcurl's own words for a failure, which tell a malformed response from a reset.
  let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(imgcache_error_size))
  /// When the last byte (of headers or body) arrived, on the monotonic clock.
  var lastActivity = DispatchTime.now().uptimeNanoseconds
  private var headerList: UnsafeMutablePointer<curl_slist>?
  var file: (path: String, descriptor: Int32)?
  var bytes: Int64 = 0
  var status = 0
  var contentType: String?
  var etag: String?
  var lastModified: String?
  /// The resume state: the request's ``Resumable`` and the headers it sends.
  var resume = ResumeState()
  /// This attempt's response headers named in ``keptHeaders`` besides the entry's three,
  /// lowercase names; repeated lines joined with ", ".
  var responseHeaders = [String: String]()
  /// Why a callback stopped the transfer, when one did.
  var abortReason: CacheError?
  /// Whether the body was cut at ``DownloadRequest/truncatesAt`` (the transfer stopped there,
  /// and what came is the response).
  var truncated = false
  /// This attempt's `X-Robots-Tag` lines, kept apart (an agent named on one line addresses
  /// only that line's directives) when the request honours them.
  var robotsTags = [String]()
  /// Whether this attempt's response sent more `X-Robots-Tag` lines than are read: an opt-out
  /// may be in one not read, so a 2xx response is refused (``optedOut()``).
  var robotsTagsOverflow = false

  /// Whether `handle` went to another transfer (``detachHandle()``): then it is not cleaned
  /// up here.
  private var handleDetached = false

  /// A transfer of `request` on `spare` (a handle ``detachHandle()`` reset), or on a new
  /// handle; nil when libcurl cannot make one.
  init?(
    id: UInt64, request: DownloadRequest, options: TransferOptions, api: imgcache_api,
    share: UnsafeMutableRawPointer?, resolve: UnsafeMutablePointer<curl_slist>? = nil,
    reusing spare: UnsafeMutableRawPointer? = nil
  ) {
    guard let handle = spare ?? imgcache_easy_init(api) else { return nil }
    self.api = api
    self.id = id
    self.request = request
    self.handle = handle
    self.maxBodySize = request.truncatesAt ?? options.maxBodySize
    self.idleNanoseconds = UInt64(Checked.milliseconds(options.idleTimeout)) * 1_000_000
    errorBuffer.initialize(repeating: 0, count: Int(imgcache_error_size))
    self.host = URLText.host(of: request.url)
    configure(options: options, share: share)
    if let resolve { imgcache_setopt_slist(api, handle, CURLOPT_RESOLVE, resolve) }
  }

  deinit {
    if !handleDetached { imgcache_easy_cleanup(api, handle) }
    errorBuffer.deallocate()
    imgcache_slist_free_all(api, headerList)
    discardFile()
  }

  /// Hands the easy handle, out of the multi handle, over to another transfer: reset to
  /// libcurl's defaults (which keeps its share and connections; every option is set again by
  /// the next transfer). This transfer must not touch it again.
  func detachHandle() -> UnsafeMutableRawPointer {
    handleDetached = true
    imgcache_easy_reset(api, handle)
    return handle
  }

  private func configure(options: TransferOptions, share: UnsafeMutableRawPointer?) {
    configureRequest(options)
    configureAccess(options, share: share)
    resume.resumable = request.resumable
    setHeaders(options.headers)
    installCallbacks()
  }

  /// The request: its URL, protocols, redirects, limits, encoding, agent and HTTP version.
  private func configureRequest(_ options: TransferOptions) {
    let h = handle
    imgcache_setopt_string(api, h, CURLOPT_URL, request.url)
    imgcache_setopt_string(api, h, CURLOPT_PROTOCOLS_STR, "http,https")
    imgcache_setopt_string(api, h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    imgcache_setopt_long(api, h, CURLOPT_FOLLOWLOCATION, 1)
    imgcache_setopt_long(api, h, CURLOPT_MAXREDIRS, options.maxRedirects)
    imgcache_setopt_long(api, h, CURLOPT_NOSIGNAL, 1)
    imgcache_setopt_long(
      api, h, CURLOPT_CONNECTTIMEOUT_MS, Checked.milliseconds(options.connectTimeout))
    imgcache_setopt_pointer(api, h, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
    // The idle timeout is time without a byte (checked from the progress callback), not an
    // average speed: a server sending a byte a second is slow, not dead.
    imgcache_setopt_long(api, h, CURLOPT_NOPROGRESS, 0)
    if options.maxTime > 0 {
      imgcache_setopt_long(api, h, CURLOPT_TIMEOUT_MS, Checked.milliseconds(options.maxTime))
    }
    if request.truncatesAt == nil {
      imgcache_setopt_off(api, h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBodySize))
    }
    imgcache_setopt_string(api, h, CURLOPT_ACCEPT_ENCODING, "")
    imgcache_setopt_string(api, h, CURLOPT_USERAGENT, options.userAgent)
    imgcache_setopt_long(api, h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
    // Over TLS, wait for a connection that may multiplex (HTTP/2, known from ALPN once its
    // handshake ends) rather than open one a transfer, as `curl --parallel` does: without it a
    // prefetch made a TLS handshake a transfer at first. Not over plain HTTP/1.1, where the
    // answer would come only with a response's headers (a slow server would stall the rest).
    if request.url.hasPrefix("https:") { imgcache_setopt_long(api, h, CURLOPT_PIPEWAIT, 1) }
  }

  /// What the request may reach and prove: TLS checks, credentials, `.netrc`, cookies, the
  /// connections and names it shares.
  private func configureAccess(_ options: TransferOptions, share: UnsafeMutableRawPointer?) {
    let h = handle
    if options.insecure {
      imgcache_setopt_long(api, h, CURLOPT_SSL_VERIFYPEER, 0)
      imgcache_setopt_long(api, h, CURLOPT_SSL_VERIFYHOST, 0)
    }
    if let caFile = options.caFile { imgcache_setopt_string(api, h, CURLOPT_CAINFO, caFile) }
    if let credentials = options.credentials ?? request.credentials {
      imgcache_setopt_string(api, h, CURLOPT_USERPWD, credentials)
      imgcache_setopt_long(api, h, CURLOPT_HTTPAUTH, imgcache_auth_basic)
    }
    if options.useNetrc {
      imgcache_setopt_long(api, h, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
      if let netrc = options.netrcFile { imgcache_setopt_string(api, h, CURLOPT_NETRC_FILE, netrc) }
    }
    if let jar = options.cookieJar {
      imgcache_setopt_string(api, h, CURLOPT_COOKIEFILE, jar)
      imgcache_setopt_string(api, h, CURLOPT_COOKIEJAR, jar)
    }
    if let share { imgcache_setopt_share(api, h, share) }
  }

  /// The callbacks libcurl calls with this transfer (unretained: it outlives its handle's use).
  private func installCallbacks() {
    let h = handle
    let me = Unmanaged.passUnretained(self).toOpaque()
    imgcache_setopt_pointer(api, h, CURLOPT_WRITEDATA, me)
    imgcache_setopt_pointer(api, h, CURLOPT_HEADERDATA, me)
    imgcache_setopt_pointer(api, h, CURLOPT_PRIVATE, me)
    imgcache_setopt_pointer(api, h, CURLOPT_XFERINFODATA, me)
    imgcache_setopt_xferinfo_function(api, h) { user, _, _, _, _ in
      guard let user else { return 0 }
      return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().checkIdle()
    }
    imgcache_setopt_write_function(api, h) { data, size, count, user in
      guard let user, let data else { return 0 }
      return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().receive(
        data, size * count)
    }
    imgcache_setopt_header_function(api, h) { data, size, count, user in
      guard let user, let data else { return 0 }
      let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
      // Fewer bytes taken than given stop the transfer: an opted-out response's body.
      return transfer.header(data, size * count) ? size * count : 0
    }
  }

  /// Sets the request headers (again, when a retry stops resuming).
  func setHeaders(_ extra: [String]) {
    resume.extraHeaders = extra
    var headers = ["Accept: image/*,*/*;q=0.8"] + extra
    // Validators come from the index, a remote object or an older version: one with a control
    // character would be a header line of its own, so it is not sent at all.
    if let etag = request.etag, HTTPFields.isSafeValue(etag) {
      headers.append("If-None-Match: \(etag)")
    }
    if let lastModified = request.lastModified, HTTPFields.isSafeValue(lastModified) {
      headers.append("If-Modified-Since: \(lastModified)")
    }
    headers += resume.rangeHeaders
    imgcache_slist_free_all(api, headerList)
    headerList = nil
    for header in headers { headerList = imgcache_slist_append(api, headerList, header) }
    imgcache_setopt_slist(api, handle, CURLOPT_HTTPHEADER, headerList)
  }

  /// Resets the per-attempt state before a (re)try.
  func prepareAttempt() {
    discardFile()
    prepareResume()
    pendingHash.removeAll(keepingCapacity: true)
    bodyInMemory = false
    if hashInFlight {
      SHA256Stream.queue.sync { hasher.reset() }
      hashInFlight = false
    } else {
      hasher.reset()
    }
    lastActivity = DispatchTime.now().uptimeNanoseconds
    errorBuffer[0] = 0
    bytes = 0
    status = 0
    abortReason = nil
    truncated = false
    robotsTags = []
    robotsTagsOverflow = false
    contentType = nil
    etag = nil
    lastModified = nil
  }

  /// Parses one header line: a status line resets the fields (redirects, 100 Continue); every
  /// other line goes through ``HeaderLine`` (any name length, no control characters), and of
  /// the headers kept a list field's lines are joined, any other field's first line counts.
  /// False at the end of a 2xx response's headers that opt out (``optedOut()``).
  private func header(_ data: UnsafeMutablePointer<CChar>, _ length: Int) -> Bool {
    lastActivity = DispatchTime.now().uptimeNanoseconds
    let bytes = UnsafeRawBufferPointer(start: data, count: length)
    if bytes.starts(with: "HTTP/".utf8) {
      let parts = bytes.split(separator: UInt8(ascii: " "), maxSplits: 2)
      status = parts.count > 1 ? Int(String(decoding: parts[1], as: UTF8.self)) ?? 0 : 0
      contentType = nil
      etag = nil
      lastModified = nil
      responseHeaders = [:]
      robotsTags = []
      robotsTagsOverflow = false
      return true
    }
    // The empty line that ends a response's headers.
    if length <= 2, bytes.first == 0x0D || bytes.first == 0x0A { return !optedOut() }
    guard let line = HeaderLine.parse(bytes, keeping: Self.keptHeaders) else { return true }
    switch line.name {
    case "x-robots-tag":
      guard request.honoursRobotsTag else { break }
      if robotsTags.count < Self.robotsTagLines {
        robotsTags.append(line.value)
      } else {
        robotsTagsOverflow = true
      }
    case "content-type": contentType = contentType ?? line.value
    case "etag": etag = etag ?? line.value
    case "last-modified": lastModified = lastModified ?? line.value
    default:
      if let earlier = responseHeaders[line.name] {
        guard HTTPFields.listFields.contains(line.name) else { return true }
        responseHeaders[line.name] = earlier + ", " + line.value
      } else {
        responseHeaders[line.name] = line.value
      }
    }
    return true
  }

  /// The most `X-Robots-Tag` lines a response is read for.
  static let robotsTagLines = 64

  /// Whether the final response's headers opt out of this download (with
  /// ``DownloadRequest/honoursRobotsTag``): then ``abortReason`` says which directive.
  private func optedOut() -> Bool {
    if request.honoursRobotsTag, (200..<300).contains(status), robotsTagsOverflow {
      abortReason = CacheError(
        .disallowed,
        "more than \(Self.robotsTagLines) X-Robots-Tag lines: refused, an opt-out may be in one "
          + "not read (the body was not downloaded)", url: request.url)
      return true
    }
    guard request.honoursRobotsTag, (200..<300).contains(status), !robotsTags.isEmpty,
      let directive = RobotsTag.optOut(in: robotsTags, agent: RobotsTag.agent)
    else { return false }
    abortReason = CacheError(
      .disallowed, "X-Robots-Tag: \(directive) (the body was not downloaded)", url: request.url)
    return true
  }

  /// Aborts the transfer (returns non-zero) after the idle timeout without a byte.
  private func checkIdle() -> Int32 {
    let idle = DispatchTime.now().uptimeNanoseconds &- lastActivity
    guard idle > idleNanoseconds else { return 0 }
    abortReason = CacheError(
      .network, "timed out: no data for \(idleNanoseconds / 1_000_000_000) s", url: request.url)
    return 1
  }
}
