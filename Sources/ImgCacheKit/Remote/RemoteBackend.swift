import FoundationEssentials
import Glibc

/// What a remote object carries besides its body: enough to verify it (size, SHA-256, format)
/// and to make it an ordinary local entry.
public struct RemoteMetadata: Codable, Sendable, Equatable {
  /// The cache key the object was stored for: a lookup takes it for that key only (nil in
  /// objects of older versions, which are then a miss).
  public var key: String?
  public var url: String
  public var size: Int64
  public var sha256: String
  public var format: String?
  public var width: Int?
  public var height: Int?
  public var contentType: String?
  public var etag: String?
  public var lastModified: String?
  /// What the origin said about reusing it, and when it was received (seconds since 1970),
  /// so that `freshness = http` judges a copy as it would the original.
  public var cacheControl: String?
  public var expires: String?
  public var date: String?
  public var age: String?
  public var received: Double?
  /// The status of the response the body came with (heuristic freshness depends on it).
  public var status: Int?
  /// For a variant: the SHA-256, width and height of the original it was made from, so that
  /// a copy is checked against its spec and re-derived when its original changes.
  public var sourceSHA256: String?
  public var sourceWidth: Int?
  public var sourceHeight: Int?

  /// The original a variant's object says it was made from; nil when it says nothing.
  public var source: VariantSource? {
    guard let sourceSHA256, let sourceWidth, let sourceHeight else { return nil }
    return VariantSource(sha256: sourceSHA256, width: sourceWidth, height: sourceHeight)
  }

  /// The metadata of a stored entry; nil when the entry has no SHA-256 (stored before it was
  /// kept): such a body is not shared, since no one could verify it.
  /// A variant's entry is shared only with its `source` (nil for an original).
  init?(_ entry: CacheEntry, source: VariantSource? = nil) {
    guard let sha256 = entry.sha256, source != nil || !CacheKey.isVariant(entry.key) else {
      return nil
    }
    sourceSHA256 = source?.sha256
    sourceWidth = source?.width
    sourceHeight = source?.height
    key = entry.key
    url = entry.url
    size = entry.size
    self.sha256 = sha256
    format = entry.format
    width = entry.width
    height = entry.height
    contentType = entry.contentType
    etag = entry.etag
    lastModified = entry.lastModified
    cacheControl = entry.freshness.cacheControl
    expires = entry.freshness.expires
    date = entry.freshness.date
    age = entry.freshness.age
    received = (entry.freshness.received ?? entry.created).timeIntervalSince1970
    status = entry.freshness.status
  }

  private enum CodingKeys: String, CodingKey {
    case key, url, size, sha256, format, width, height
    case contentType = "content_type"
    case etag
    case lastModified = "last_modified"
    case cacheControl = "cache_control"
    case expires, date, age, received, status
    case sourceSHA256 = "source_sha256"
    case sourceWidth = "source_width"
    case sourceHeight = "source_height"
  }
}

/// One remote server (a backend, or one of its `servers=`). Blocking calls, made from the remote tier's
/// tasks on the blocking queue; they throw ``CacheError`` (`.network` for transport failures,
/// "timed out" first in its detail for a timeout).
protocol RemoteServer: Sendable {
  /// Fetches the object `name` into the file at `path`, reading at most `maxSize` bytes of
  /// body; nil when it is not there. Throws ``RemoteObjectRefusal`` for an object that cannot
  /// be taken (damaged, larger than `maxSize`), ``CacheError`` when the server fails.
  func get(_ name: String, into path: String, maxSize: Int64) throws -> RemoteMetadata?
  /// Stores the body at `path` as object `name`; returns the bytes sent.
  func put(_ name: String, body path: String, metadata: RemoteMetadata) throws -> Int64
  /// Reachability and, where cheap, how many objects and bytes the store holds.
  func status() throws -> (objects: Int64?, bytes: Int64?)
}

/// Objects on HTTP/WebDAV and S3 stores are the body followed by a trailer: the metadata as
/// JSON, its length (8 bytes, little endian) and `IMGCACHE` — one object, written in one PUT,
/// so a body never goes without its metadata, and an image viewer still opens it (decoders
/// stop at the image's end).
package enum RemoteEnvelope {
  package static let magic = Data("IMGCACHE".utf8)
  /// The largest trailer read: metadata under 64 KiB, its length and the magic.
  static let maximumTrailer: Int64 = 65_536 + 16

  /// The trailer for `metadata`.
  static func trailer(_ metadata: RemoteMetadata) throws -> Data {
    let json = try JSONEncoder().encode(metadata)
    var length = UInt64(json.count).littleEndian
    return json + Data(bytes: &length, count: 8) + magic
  }

  /// Reads the trailer at the end of the file at `path` and cuts it off, leaving the body.
  package static func open(_ path: String) throws -> RemoteMetadata {
    let fd = Glibc.open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size >= 16 else { throw corrupt("no trailer") }
    func read(_ count: Int, at offset: off_t) throws -> Data {
      var buffer = Data(count: count)
      let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, offset) }
      guard got == count else { throw corrupt("short read") }
      return buffer
    }
    let tail = try read(16, at: info.st_size - 16)
    guard tail.suffix(8) == magic else { throw corrupt("no trailer") }
    let length = tail.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.1) << (8 * $1.0) }
    guard length < 65_536, Int64(length) + 16 <= Int64(info.st_size) else {
      throw corrupt("bad trailer length")
    }
    let bodySize = info.st_size - 16 - off_t(length)
    let metadata: RemoteMetadata
    do {
      metadata = try JSONDecoder().decode(
        RemoteMetadata.self, from: try read(Int(length), at: bodySize))
    } catch let refusal as RemoteObjectRefusal {
      throw refusal
    } catch {
      throw corrupt("unreadable metadata")
    }
    guard ftruncate(fd, bodySize) == 0 else {
      throw CacheError.posix("cannot truncate", path: path)
    }
    return metadata
  }

  static func corrupt(_ why: String) -> RemoteObjectRefusal { .corrupt(why) }
}
