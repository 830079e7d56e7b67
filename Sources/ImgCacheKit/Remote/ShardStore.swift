import FoundationEssentials

/// Where `export -o URL` puts whole shards (docs/design.md, Export): a WebDAV or HTTP folder
/// (`https://user:password@host/path`) or an S3 bucket and prefix (`s3://bucket/prefix`, with
/// the remote tier's attributes: `endpoint=`, `region=`, keys or `AWS_*`). Each file is PUT as
/// it is, named flat under the path; a PUT is whole or absent, so the samples' tar, sent last,
/// says a shard is whole: a reader that lists `*.tar` never meets one without its tables.
public final class ShardStore: Sendable {
  /// The destination as messages show it (credentials as `***`).
  public let label: String
  private let server: HTTPServer

  /// Whether `output` names a store rather than a folder (Redis too, to be refused by name).
  public static func names(_ output: String) -> Bool {
    RemoteSpec.schemes.contains { output.hasPrefix($0) }
  }

  /// The store `text` names (a backend as `remote_storage` writes one); S3 credentials may
  /// come from `environment`. Uploads get patient timeouts unless the attributes say: 10 s
  /// to connect, 10 min a file.
  public init(_ text: String, environment: [String: String]) throws {
    var spec = try RemoteSpec.parse(text)
    label = RemoteSpec.redactList(text)
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

  /// Uploads the file at `path` as `name`.
  public func upload(_ path: String, as name: String) throws {
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
