import CCurl
import FoundationEssentials
import Glibc

/// One request to an object store (a WebDAV or HTTP cache, S3): GET into a file, PUT from a
/// file (with an optional trailer after it, sent with a Content-Length), HEAD, DELETE. Run to
/// completion on the calling thread by a multi handle of its own, bounded by a connect and an
/// operation timeout; the remote tier calls it from its blocking queue.
public struct ObjectRequest: Sendable {
  /// The method.
  public enum Method: String, Sendable {
    case get = "GET", put = "PUT", head = "HEAD", delete = "DELETE"
  }

  public var method: Method
  /// The object's URL, without credentials.
  public var url: String
  /// Extra request headers.
  public var headers: [String] = []
  /// `user:password` for basic authentication, or the S3 key pair with `awsSignature`.
  public var credentials: String?
  /// `aws:amz:<region>:s3`: sign with AWS Signature Version 4 (libcurl's CURLOPT_AWS_SIGV4).
  public var awsSignature: String?
  /// GET: where the body goes (created or truncated).
  public var destination: String?
  /// GET: the most bytes read; past it the transfer stops and the response says so.
  public var maxBytes: Int64?
  /// PUT: the file sent, then `trailer`.
  public var source: String?
  public var trailer = Data()
  public var connectTimeout: TimeInterval
  public var operationTimeout: TimeInterval

  /// Creates a request.
  public init(
    _ method: Method, url: String, connectTimeout: TimeInterval, operationTimeout: TimeInterval
  ) {
    self.method = method
    self.url = url
    self.connectTimeout = connectTimeout
    self.operationTimeout = operationTimeout
  }

  /// What came back: the status (0 when none), bytes received and sent, and whether the
  /// body was cut at ``maxBytes``.
  public struct Response: Sendable {
    public var status: Int
    public var received: Int64
    public var sent: Int64
    public var exceededLimit = false
  }

  /// Runs the request on `connection` (its connections to the server are kept for the next
  /// request), or on handles of its own. Throws `.network` on a transport failure (its message
  /// says "timed out" for a timeout), `.localIO` when a file cannot be read or written.
  public func perform(on connection: ObjectConnection? = nil) throws -> Response {
    let api = try CurlLibrary.shared.get().api
    let owned = connection == nil ? try ObjectConnection() : nil
    guard let session = connection ?? owned else {
      throw CacheError(.localIO, "cannot create a libcurl handle", url: url)
    }
    let (handle, multi) = (session.handle, session.multi)
    imgcache_easy_reset(api, handle)
    let state = ObjectTransferState()
    defer {
      imgcache_multi_remove_handle(api, multi, handle)
      imgcache_slist_free_all(api, state.headerList)
      state.close()
    }
    try configure(handle, api: api, state: state)
    imgcache_multi_add_handle(api, multi, handle)
    var running: Int32 = 1
    while running > 0 {
      guard imgcache_multi_perform(api, multi, &running) == CURLM_OK else { break }
      if running > 0 { imgcache_multi_poll(api, multi, 100) }
    }
    var left: Int32 = 0
    var code = CURLE_OK
    while let message = imgcache_multi_info_read(api, multi, &left) {
      code = imgcache_msg_result(message)
    }
    var status = 0
    imgcache_getinfo_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
    if state.exceeded {
      return Response(
        status: status, received: state.received, sent: state.sent, exceededLimit: true)
    }
    if let failure = state.failure { throw failure }
    guard code == CURLE_OK else {
      throw CurlTransfer.error(for: code, detail: "", url: url)
    }
    return Response(status: status, received: state.received, sent: state.sent)
  }

  private func configure(
    _ h: UnsafeMutableRawPointer, api: imgcache_api, state: ObjectTransferState
  )
    throws
  {
    imgcache_setopt_string(api, h, CURLOPT_URL, url)
    imgcache_setopt_string(api, h, CURLOPT_PROTOCOLS_STR, "http,https")
    imgcache_setopt_long(api, h, CURLOPT_NOSIGNAL, 1)
    imgcache_setopt_long(api, h, CURLOPT_CONNECTTIMEOUT_MS, Checked.milliseconds(connectTimeout))
    imgcache_setopt_long(api, h, CURLOPT_TIMEOUT_MS, Checked.milliseconds(operationTimeout))
    if let credentials { imgcache_setopt_string(api, h, CURLOPT_USERPWD, credentials) }
    if let awsSignature {
      imgcache_setopt_string(api, h, CURLOPT_AWS_SIGV4, awsSignature)
    } else if credentials != nil {
      imgcache_setopt_long(api, h, CURLOPT_HTTPAUTH, imgcache_auth_basic)
    }
    for header in headers {
      state.headerList = imgcache_slist_append(api, state.headerList, header)
    }
    // No "Expect: 100-continue" round trip before a PUT (not with SigV4: libcurl 7.88 would
    // sign the empty header, and the signature would not match).
    if method == .put && awsSignature == nil {
      state.headerList = imgcache_slist_append(api, state.headerList, "Expect:")
    }
    imgcache_setopt_slist(api, h, CURLOPT_HTTPHEADER, state.headerList)
    try configureMethod(h, api: api, state: state)
  }

  /// The method's own options: what is sent, and where what comes back goes.
  private func configureMethod(
    _ h: UnsafeMutableRawPointer, api: imgcache_api, state: ObjectTransferState
  ) throws {
    let me = Unmanaged.passUnretained(state).toOpaque()
    switch method {
    case .head:
      imgcache_setopt_long(api, h, CURLOPT_NOBODY, 1)
    case .delete:
      imgcache_setopt_string(api, h, CURLOPT_CUSTOMREQUEST, "DELETE")
      // Whatever the server says back is read and dropped (no destination).
      imgcache_setopt_pointer(api, h, CURLOPT_WRITEDATA, me)
      imgcache_setopt_write_function(api, h, objectWrite)
    case .get:
      if let destination {
        let fd = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CacheError.posix("cannot create", path: destination) }
        state.output = fd
      }
      state.limit = maxBytes
      imgcache_setopt_pointer(api, h, CURLOPT_WRITEDATA, me)
      imgcache_setopt_write_function(api, h, objectWrite)
    case .put:
      guard let source else { throw CacheError(.invalidInput, "PUT without a body", url: url) }
      let fd = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      guard fd >= 0 else { throw CacheError.posix("cannot read", path: source) }
      var info = stat()
      fstat(fd, &info)
      state.input = fd
      state.trailer = trailer
      imgcache_setopt_long(api, h, CURLOPT_UPLOAD, 1)
      imgcache_setopt_off(
        api, h, CURLOPT_INFILESIZE_LARGE, curl_off_t(info.st_size) + curl_off_t(trailer.count))
      imgcache_setopt_pointer(api, h, CURLOPT_READDATA, me)
      imgcache_setopt_read_function(api, h, objectRead)
      imgcache_setopt_pointer(api, h, CURLOPT_WRITEDATA, me)
      imgcache_setopt_write_function(api, h, objectWrite)
    }
  }
}

/// An easy handle and the multi handle that runs it, kept between requests so that the
/// connection to a server (its TCP and TLS handshakes) serves many objects.
// @unchecked: libcurl easy and multi handles (C), used by the caller that holds the
// connection, one at a time.
public final class ObjectConnection: @unchecked Sendable {
  // @unchecked: used by one request at a time — the caller that created it, or took it out
  // of its server's pool.
  let handle: UnsafeMutableRawPointer
  let multi: UnsafeMutableRawPointer
  private let api: imgcache_api

  /// Creates the handles (libcurl loaded on first use).
  public init() throws {
    api = try CurlLibrary.shared.get().api
    guard let handle = imgcache_easy_init(api) else {
      throw CacheError(.localIO, "cannot create a libcurl handle")
    }
    guard let multi = imgcache_multi_init(api) else {
      imgcache_easy_cleanup(api, handle)
      throw CacheError(.localIO, "cannot create a libcurl handle")
    }
    self.handle = handle
    self.multi = multi
  }

  deinit {
    imgcache_easy_cleanup(api, handle)
    imgcache_multi_cleanup(api, multi)
  }
}

/// The state of one ``ObjectRequest`` while libcurl runs it (on the calling thread only).
private final class ObjectTransferState {
  var output: Int32 = -1
  var input: Int32 = -1
  var trailer = Data()
  var trailerSent = 0
  var received: Int64 = 0
  var sent: Int64 = 0
  var limit: Int64?
  var exceeded = false
  var failure: CacheError?
  var headerList: UnsafeMutablePointer<curl_slist>?

  func close() {
    if output >= 0 { Glibc.close(output) }
    if input >= 0 { Glibc.close(input) }
  }
}

/// Writes the body into the destination file (or drops it: error pages, PUT replies).
private func objectWrite(
  _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let data, let context else { return 0 }
  let state = Unmanaged<ObjectTransferState>.fromOpaque(context).takeUnretainedValue()
  let length = size * count
  state.received += Int64(length)
  if let limit = state.limit, state.received > limit {
    state.exceeded = true
    return 0
  }
  guard state.output >= 0 else { return length }
  do {
    try FileIO.writeAll(state.output, data, count: length, display: "a remote object in tmp/")
  } catch {
    state.failure = error as? CacheError
    return 0
  }
  return length
}

/// Reads the file being sent, then its trailer.
private func objectRead(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ context: UnsafeMutableRawPointer?
) -> Int {
  guard let buffer, let context else { return 0 }
  let state = Unmanaged<ObjectTransferState>.fromOpaque(context).takeUnretainedValue()
  let capacity = size * count
  if state.input >= 0 {
    let n = read(state.input, buffer, capacity)
    if n > 0 {
      state.sent += Int64(n)
      return n
    }
    if n < 0 {
      state.failure = CacheError.posix("cannot read a body to send", path: "data/")
      return Int(CURL_READFUNC_ABORT)
    }
    Glibc.close(state.input)
    state.input = -1
  }
  let left = state.trailer.count - state.trailerSent
  let n = min(left, capacity)
  if n > 0 {
    state.trailer.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return }
      UnsafeMutableRawPointer(buffer).copyMemory(from: base + state.trailerSent, byteCount: n)
    }
    state.trailerSent += n
    state.sent += Int64(n)
  }
  return n
}
