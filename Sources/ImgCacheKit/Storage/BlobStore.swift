import FoundationEssentials

/// Where a lookup found a body.
public enum CacheHit: Sendable, Equatable {
  /// In this cache, with its index row.
  case local(CacheEntry, path: String)
  /// In a read-only extra directory (SDWebImage's flat `<md5>[.ext]` layout).
  case readOnly(path: String)
  /// In a remote backend (shown as `backend`): verified and copied into this cache, whose
  /// entry it now is.
  case remote(CacheEntry, path: String, backend: String)

  /// The absolute path of the body.
  public var path: String {
    switch self {
    case .local(_, let path), .readOnly(let path), .remote(_, let path, _): return path
    }
  }
}

/// One storage tier the pipeline walks, in order, before the network: the local cache, the
/// read-only directories and, later, remote stores (Redis, WebDAV, S3).
///
/// A tier is asynchronous and may fail; the pipeline treats a failing secondary tier as a miss.
/// A read-only tier refuses `store` and `remove`.
public protocol BlobStore: Sendable {
  /// A short name for messages and statistics (`local`, `read-only /srv/images`).
  var label: String { get }
  /// Whether the tier refuses writes.
  var isReadOnly: Bool { get }

  /// The hits among `keys`. With `touch`, a tier that keeps use times records the use.
  func lookup(keys: [String], touch: Bool) async throws -> [String: CacheHit]

  /// Keeps a copy of the complete body at `path` under `key`; `path` is left as it is.
  func store(key: String, url: String, copying path: String, metadata: EntryMetadata)
    async throws

  /// Removes `key`; returns whether something was there.
  func remove(key: String) async throws -> Bool
}

/// SDWebImage's additional cache paths: flat folders of `<md5>[.ext]` files, searched after
/// this cache, never written or cleaned.
public struct ReadOnlyDirectories: BlobStore {
  /// The folders, searched in order.
  public let directories: [URL]

  /// The tier over `directories`.
  public init(_ directories: [URL]) { self.directories = directories }

  public var label: String { "read-only " + directories.map(\.path).joined(separator: ", ") }
  public var isReadOnly: Bool { true }

  public func lookup(keys: [String], touch: Bool) async throws -> [String: CacheHit] {
    var hits = [String: CacheHit]()
    for key in keys { if let hit = lookup(key: key) { hits[key] = hit } }
    return hits
  }

  /// Looks `key` up: `<md5>.<ext>`, then the legacy `<md5>`, in each folder.
  public func lookup(key: String) -> CacheHit? {
    guard !directories.isEmpty else { return nil }
    let name = CacheKey.fileName(for: key)
    let legacy = MD5.hex(of: key)
    for directory in directories {
      for candidate in name == legacy ? [name] : [name, legacy] {
        let path = directory.appendingPathComponent(candidate).path
        if FileIO.isFile(path) { return .readOnly(path: path) }
      }
    }
    return nil
  }

  public func store(key: String, url: String, copying path: String, metadata: EntryMetadata)
    async throws
  {
    throw CacheError(.invalidInput, "\(label) is read-only")
  }

  public func remove(key: String) async throws -> Bool {
    throw CacheError(.invalidInput, "\(label) is read-only")
  }
}
