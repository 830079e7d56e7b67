import FoundationEssentials
import Glibc

/// A Redis server of the remote tier. An object is one hash, `imgcache:<name>`: the body in
/// field `body` and the metadata beside it, so Redis' LRU eviction (`maxmemory-policy
/// allkeys-lru`) drops both together.
///
/// Its connections are a ``RedisClient``'s (role `objects`), as many as the transfers that
/// use them at once.
final class RedisServer: RemoteServer {
  private let client: RedisClient
  private let spec: RemoteSpec
  private var display: String { client.endpoint.display }

  /// A server at `url` (`redis://…` or `redis+unix:…`) with `spec`'s timeouts: its
  /// connections a pool as large as the transfers that use it at once.
  init(url: String, spec: RemoteSpec) throws {
    self.spec = spec
    let endpoint = try RedisEndpoint(
      url: url, display: spec.label(of: url), connectTimeout: spec.connectTimeout)
    client = RedisClient(endpoint, role: "objects", limit: nil)
  }

  /// The object: its body's length asked first (one longer than `maxSize` is refused before
  /// it is read), then its metadata, then its body streamed into `path`.
  func get(_ name: String, into path: String, maxSize: Int64) throws -> RemoteMetadata? {
    let deadline = RedisDeadline(seconds: spec.operationTimeout)
    let key = RedisArgument.text("imgcache:\(name)")
    return try client.withConnection(deadline) { connection -> RemoteMetadata? in
      let length = try client.check(
        connection.command([.text("HSTRLEN"), key, .text("body")], deadline: deadline))
      guard case .integer(let size) = length else {
        throw CacheError(.network, "\(display): unexpected reply to HSTRLEN")
      }
      if size == 0 { return nil }
      guard size <= maxSize else {
        return try refuse(.unsuitable("larger than max_filesize"), connection)
      }
      let json: Data
      do {
        let reply = try client.check(
          connection.command(
            [.text("HGET"), key, .text("meta")], deadline: deadline,
            maxReply: RemoteEnvelope.maximumTrailer))
        guard case .string(let data) = reply else {
          return try refuse(.corrupt("no metadata"), connection)
        }
        json = data
      } catch is RedisReplyTooLarge {
        throw RemoteObjectRefusal.corrupt("metadata over 64 KiB")
      }
      let metadata: RemoteMetadata
      do { metadata = try JSONDecoder().decode(RemoteMetadata.self, from: json) } catch {
        return try refuse(.corrupt("unreadable metadata"), connection)
      }
      let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
      guard output >= 0 else { throw CacheError.posix("cannot write", path: path) }
      defer { close(output) }
      do {
        // Guarded again: the body may have grown since its length was asked.
        guard
          try connection.command(
            [.text("HGET"), key, .text("body")], into: output, maxSize: maxSize,
            deadline: deadline) != nil
        else { return try refuse(.corrupt("no body"), connection) }
      } catch is RedisReplyTooLarge {
        throw RemoteObjectRefusal.unsuitable("larger than max_filesize")
      }
      return metadata
    }
  }

  /// Throws `refusal` for an object whose reply was read whole: the connection, still in step,
  /// goes back to the pool first.
  private func refuse(
    _ refusal: RemoteObjectRefusal, _ connection: RedisConnection
  ) throws -> RemoteMetadata? {
    client.keep(connection)
    throw refusal
  }

  /// Stores the body at `path` (opened without following a link: a data file replaced by a
  /// symlink is not sent) and its metadata, streaming the body from its file.
  func put(_ name: String, body path: String, metadata: RemoteMetadata) throws -> Int64 {
    let input = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard input >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(input) }
    var info = stat()
    guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw CacheError(.localIO, "cannot read \(path): not a regular file")
    }
    let size = Int64(info.st_size)
    let json = try JSONEncoder().encode(metadata)
    let deadline = RedisDeadline(seconds: spec.operationTimeout)
    _ = try client.call(
      [
        .text("HSET"), .text("imgcache:\(name)"), .text("body"),
        .file(descriptor: input, size: size), .text("meta"), .bytes(json),
      ], deadline: deadline)
    return size + Int64(json.count)
  }

  func status() throws -> (objects: Int64?, bytes: Int64?) {
    let deadline = RedisDeadline(seconds: spec.operationTimeout)
    return try client.withConnection(deadline) { connection in
      guard
        case .integer(let keys) = try client.check(
          connection.command([.text("DBSIZE")], deadline: deadline))
      else {
        return (nil, nil)
      }
      let info =
        try client.check(connection.command([.text("INFO"), .text("memory")], deadline: deadline))
        .text
        ?? ""
      let used = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("used_memory:") }
        .flatMap { Checked.digits($0.dropFirst("used_memory:".count)) }
      return (keys, used)
    }
  }
}
