import FoundationEssentials
import Synchronization

/// A WebDAV or plain HTTP store of the remote tier (nginx with `dav_methods PUT`, Apache
/// mod_dav, bazel-remote, ccache's http storage), or an S3 bucket: objects are GET and PUT
/// through libcurl, each the body followed by its metadata (``RemoteEnvelope``).
///
/// Lock rule: `idle` guards a list of connections; one is taken out, used outside the lock,
/// and put back, so its open connection (TCP and TLS) serves the next object.
final class HTTPServer: RemoteServer {
  /// How object URLs are made and requests signed.
  struct Addressing: Sendable {
    /// The base URL, without credentials or a trailing slash.
    var base: String
    /// `subdirs`: `<base>/ab/<name>`; `flat`: `<base>/<name>`.
    var subdirectories: Bool
    var headers: [String] = []
    var credentials: String?
    /// `aws:amz:<region>:s3` for S3.
    var awsSignature: String?
  }

  private let addressing: Addressing
  private let spec: RemoteSpec
  private let display: String
  private let idle = Mutex<[ObjectConnection]>([])

  init(addressing: Addressing, spec: RemoteSpec, display: String) {
    self.addressing = addressing
    self.spec = spec
    self.display = display
  }

  /// A WebDAV/HTTP server at `url` (`https://user:password@host/path`).
  convenience init(url: String, spec: RemoteSpec) throws {
    let display = spec.label(of: url)
    guard let split = try? RequestURL(url) else {
      throw CacheError(.invalidInput, "remote storage \(display): malformed URL")
    }
    var addressing = Addressing(
      base: split.stripped.hasSuffix("/") ? String(split.stripped.dropLast()) : split.stripped,
      subdirectories: spec.attributes["layout"] != "flat")
    addressing.credentials = split.credentials
    if let token = spec.attributes["bearer-token"] {
      addressing.headers.append("Authorization: Bearer \(token)")
    }
    self.init(addressing: addressing, spec: spec, display: display)
  }

  private func objectURL(_ name: String) -> String {
    addressing.base + (addressing.subdirectories ? "/\(name.prefix(2))/" : "/") + name
  }

  private func request(_ method: ObjectRequest.Method, _ url: String) -> ObjectRequest {
    var request = ObjectRequest(
      method, url: url, connectTimeout: spec.connectTimeout,
      operationTimeout: spec.operationTimeout)
    request.headers = addressing.headers
    request.credentials = addressing.credentials
    request.awsSignature = addressing.awsSignature
    // S3 checks the payload's hash against this header (libcurl 7.88 does not send one): a
    // request without a body hashes nothing; a PUT says its own (``upload(_:from:trailer:type:)``).
    if addressing.awsSignature != nil && method != .put {
      request.headers.append("x-amz-content-sha256: \(SHA256.empty)")
    }
    return request
  }

  /// PUTs the file at `path`, then `trailer`, to `url` as `type`; the bytes sent.
  private func upload(_ url: String, from path: String, trailer: Data, type: String) throws
    -> Int64
  {
    var request = request(.put, url)
    request.source = path
    request.trailer = trailer
    request.headers.append("Content-Type: \(type)")
    if addressing.awsSignature != nil {
      request.headers.append(
        "x-amz-content-sha256: \(try SHA256.hex(ofFileAt: path, then: trailer))")
    }
    let response = try perform(request)
    guard (200..<300).contains(response.status) else { throw failure(response.status, "PUT") }
    return response.sent
  }

  private func failure(_ status: Int, _ what: String) -> CacheError {
    if status == 401 || status == 403 {
      return CacheError(.auth, "\(display): \(what) refused (HTTP \(status))", httpStatus: status)
    }
    return CacheError(.httpStatus, "\(display): \(what): HTTP \(status)", httpStatus: status)
  }

  private func perform(_ request: ObjectRequest) throws -> ObjectRequest.Response {
    do {
      let connection = try idle.withLock { $0.popLast() } ?? ObjectConnection()
      let response = try request.perform(on: connection)
      // A failed request drops its connection (it may be broken); a good one is kept.
      idle.withLock { $0.append(connection) }
      return response
    } catch var error as CacheError {
      error.url = nil
      error.detail =
        error.isTimeout ? "timed out (\(display))" : "\(display): \(error.detail)"
      throw error
    }
  }

  func get(_ name: String, into path: String, maxSize: Int64) throws -> RemoteMetadata? {
    var request = request(.get, objectURL(name))
    request.destination = path
    // The body, then at most the trailer: its metadata (under 64 KiB), length and magic.
    request.maxBytes = Checked.sum(max(0, maxSize), RemoteEnvelope.maximumTrailer)
    let response = try perform(request)
    if response.status == 404 { return nil }
    guard response.status == 200 else { throw failure(response.status, "GET") }
    if response.exceededLimit { throw RemoteObjectRefusal.unsuitable("larger than max_filesize") }
    return try RemoteEnvelope.open(path)
  }

  func put(_ name: String, body path: String, metadata: RemoteMetadata) throws -> Int64 {
    try upload(
      objectURL(name), from: path, trailer: try RemoteEnvelope.trailer(metadata),
      type: "application/octet-stream")
  }

  /// Stores the file at `path` as it is (no metadata trailer) at `<base>/<name>`.
  func putFile(_ name: String, from path: String, contentType: String) throws {
    _ = try upload(addressing.base + "/" + name, from: path, trailer: Data(), type: contentType)
  }

  /// Fetches `<base>/<name>` as it is into the file at `path`, at most `maxSize` bytes; false
  /// when it is not there (or is larger).
  func getFile(_ name: String, into path: String, maxSize: Int64) throws -> Bool {
    var request = request(.get, addressing.base + "/" + name)
    request.destination = path
    request.maxBytes = maxSize
    let response = try perform(request)
    if response.status == 404 { return false }
    guard response.status == 200 else { throw failure(response.status, "GET") }
    return !response.exceededLimit
  }

  /// Deletes `<base>/<name>`; one that is not there is no error.
  func deleteFile(_ name: String) throws {
    let request = request(.delete, addressing.base + "/" + name)
    let response = try perform(request)
    guard (200..<300).contains(response.status) || response.status == 404 else {
      throw failure(response.status, "DELETE")
    }
  }

  /// Whether `<base>/<name>` is there (a HEAD).
  func hasFile(_ name: String) throws -> Bool {
    let request = request(.head, addressing.base + "/" + name)
    let response = try perform(request)
    if response.status == 404 { return false }
    guard response.status == 200 else { throw failure(response.status, "HEAD") }
    return true
  }

  func status() throws -> (objects: Int64?, bytes: Int64?) {
    guard addressing.awsSignature != nil else {
      // Reachable when it answers at all (a WebDAV folder may well say 403 or 404 to a
      // HEAD), unless it asks for credentials.
      let response = try perform(request(.head, addressing.base + "/"))
      if response.status == 401 || response.status == 407 { throw failure(response.status, "HEAD") }
      return (nil, nil)
    }
    return try S3Listing.count(self, base: addressing.base)
  }

  /// Lists one page of an S3 bucket (ListObjectsV2) into `path`; returns its status.
  func list(_ url: String, into path: String) throws -> Int {
    var request = request(.get, url)
    request.destination = path
    return try perform(request).status
  }
}
