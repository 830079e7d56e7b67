import FoundationEssentials

/// Where `export -o URL` puts whole shards (docs/design.md, Export): a WebDAV or HTTP folder
/// (`https://user:password@host/path`) or an S3 bucket and prefix (`s3://bucket/prefix`, with
/// the remote tier's attributes: `endpoint=`, `region=`, keys or `AWS_*`). Each file is PUT as
/// it is, named flat under the path; a PUT is whole or absent, so the samples' tar, sent last,
/// says a shard is whole: a reader that lists `*.tar` never meets one without its tables.
public final class ShardStore: Sendable {
  /// The destination as messages show it (credentials as `***`).
  public let label: String
  /// The largest file one upload may send: S3's largest single PUT to a bucket; nil (no limit
  /// of its own) to a WebDAV folder.
  package let largestUpload: Int64?
  private let server: HTTPServer

  /// S3's largest object sent in one PUT: 5 GiB.
  public static let s3LargestPut: Int64 = 5 << 30

  /// Whether `output` names a store rather than a folder (Redis too, to be refused by name).
  public static func names(_ output: String) -> Bool {
    RemoteSpec.schemes.contains { output.hasPrefix($0) }
  }

  /// The store `text` names (a backend as `remote_storage` writes one); S3 credentials may
  /// come from `environment`. Uploads get patient timeouts unless the attributes say: 10 s
  /// to connect, 10 min a file.
  public convenience init(_ text: String, environment: [String: String]) throws {
    try self.init(text, environment: environment, largestUpload: nil)
  }

  /// The store `text` names, its largest upload `largestUpload` when given (else its kind's).
  package init(_ text: String, environment: [String: String], largestUpload: Int64?) throws {
    var spec = try RemoteSpec.parse(text)
    label = RemoteSpec.redactList(text)
    self.largestUpload = largestUpload ?? (spec.kind == .s3 ? Self.s3LargestPut : nil)
    if spec.attributes["connect-timeout"] == nil { spec.connectTimeout = 10 }
    if spec.attributes["operation-timeout"] == nil { spec.operationTimeout = 600 }
    switch spec.kind {
    case .http: server = try HTTPServer(url: spec.url, spec: spec)
    case .s3: server = try S3Listing.server(url: spec.url, spec: spec, environment: environment)
    case .redis:
      throw CacheError(
        .invalidInput,
        "-o \(label): shards go to a folder, an http(s):// (WebDAV) folder or an s3:// bucket, "
          + "not Redis")
    }
  }

  /// Throws ``CacheError/Kind/tooLarge`` when the file at `path`, to be sent as `name`, is
  /// over ``largestUpload``: refused before anything is sent, not after gigabytes.
  public func checkSize(of path: String, as name: String) throws {
    guard let largest = largestUpload, let size = FileIO.sizes(of: path)?.size, size > largest
    else { return }
    throw CacheError(
      .tooLarge,
      "\(name) is \(size) bytes: one upload to \(label) sends at most \(largest) (S3's single "
        + "PUT); export again with a smaller --shard-size")
  }

  /// Uploads the file at `path` as `name` (checked by ``checkSize(of:as:)`` first).
  public func upload(_ path: String, as name: String) throws {
    try checkSize(of: path, as: name)
    let type = name.hasSuffix(".tar") ? "application/x-tar" : "application/json"
    try server.putFile(name, from: path, contentType: type)
  }

  /// Deletes `name` from the store (nothing when it has none).
  public func delete(_ name: String) throws { try server.deleteFile(name) }

  /// Whether the store has `name`.
  public func has(_ name: String) throws -> Bool { try server.hasFile(name) }

  /// Downloads `name` into the file at `path` (at most `maxSize` bytes); false when the store
  /// does not have it.
  public func download(_ name: String, into path: String, maxSize: Int64) throws -> Bool {
    try server.getFile(name, into: path, maxSize: maxSize)
  }
}
