import Foundation
import Synchronization

/// A Redis server of the remote tier. An object is one hash, `imgcache:<name>`: the body in
/// field `body` and the metadata beside it, so Redis' LRU eviction (`maxmemory-policy
/// allkeys-lru`) drops both together.
///
/// Lock rule: `idle` guards a list of connections; a connection is taken out, used outside
/// the lock, and put back.
final class RedisServer: RemoteServer {
  private let host: String?
  private let port: Int
  private let socket: String?
  private let user: String?
  private let password: String?
  private let database: Int
  private let spec: RemoteSpec
  private let display: String
  private let idle = Mutex<[RedisConnection]>([])

  /// A server at `url` (`redis://…` or `redis+unix:…`) with `spec`'s timeouts.
  init(url: String, spec: RemoteSpec) throws {
    self.spec = spec
    display = spec.label(of: url)
    let bad = CacheError(.invalidInput, "remote storage \(display): malformed Redis URL")
    if url.hasPrefix("redis+unix:") && !url.hasPrefix("redis+unix://") {
      (host, port, user, password) = (nil, 0, nil, nil)
      socket = String(url.dropFirst("redis+unix:".count))
      database = 0
      guard socket?.hasPrefix("/") == true else { throw bad }
      return
    }
    let normalized = url.replacingOccurrences(of: "redis+unix://", with: "redis://")
    guard let parts = URLComponents(string: normalized) else { throw bad }
    let isUnix = url.hasPrefix("redis+unix://")
    // redis://SECRET@host is a password alone; redis://USER:SECRET@host, both.
    if let secret = parts.password {
      (user, password) = (parts.user?.isEmpty == false ? parts.user : nil, secret)
    } else {
      (user, password) = (nil, parts.user)
    }
    if isUnix {
      (host, port, socket) = (nil, 0, parts.path)
      database = parts.queryItems?.first { $0.name == "db" }?.value.flatMap { Int($0) } ?? 0
    } else {
      guard let name = parts.host, !name.isEmpty else { throw bad }
      (host, port, socket) = (name, parts.port ?? 6379, nil)
      let path = parts.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
      guard path.isEmpty || Int(path) != nil else { throw bad }
      database = Int(path) ?? 0
    }
  }

  /// Runs `body` on an idle connection, or a new one; a connection that failed is dropped. An
  /// idle connection the server closed meanwhile (its `timeout`, a NAT) gets one retry on a
  /// new connection. Everything, connecting included, ends by `deadline`.
  func withConnection<T>(
    _ deadline: RedisDeadline, _ body: (RedisConnection) throws -> T
  ) throws -> T {
    if let pooled = idle.withLock({ $0.popLast() }) {
      do {
        let result = try body(pooled)
        idle.withLock { $0.append(pooled) }
        return result
      } catch let error as CacheError where error.kind == .network && !error.isTimeout {
        // Dropped: a new connection below.
      }
    }
    let connection = try RedisConnection(
      host: host, port: port, socket: socket, user: user, password: password,
      database: database, connectTimeout: spec.connectTimeout, deadline: deadline,
      display: display)
    let result = try body(connection)
    idle.withLock { $0.append(connection) }
    return result
  }

  /// A connection of its own, not pooled (a subscriber's: it reads messages for as long as
  /// its owner keeps it), made by `deadline`.
  func connect(_ deadline: RedisDeadline) throws -> RedisConnection {
    try RedisConnection(
      host: host, port: port, socket: socket, user: user, password: password,
      database: database, connectTimeout: spec.connectTimeout, deadline: deadline,
      display: display)
  }

  func check(_ value: RedisValue) throws -> RedisValue {
    if case .error(let text) = value {
      if text.hasPrefix("NOAUTH") || text.hasPrefix("WRONGPASS") {
        throw CacheError(.auth, "\(display): authentication refused")
      }
      throw CacheError(.network, "\(display): \(RedisConnection.printable(text))")
    }
    return value
  }

  /// The object: its body's length asked first (one longer than `maxSize` is refused before
  /// it is read), then its metadata, then its body streamed into `path`.
  func get(_ name: String, into path: String, maxSize: Int64) throws -> RemoteMetadata? {
    let deadline = RedisDeadline(seconds: spec.operationTimeout)
    let key = RedisArgument.text("imgcache:\(name)")
    return try withConnection(deadline) { connection -> RemoteMetadata? in
      let length = try check(
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
        let reply = try check(
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
    idle.withLock { $0.append(connection) }
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
    _ = try withConnection(deadline) {
      try check(
        $0.command(
          [
            .text("HSET"), .text("imgcache:\(name)"), .text("body"),
            .file(descriptor: input, size: size), .text("meta"), .bytes(json),
          ], deadline: deadline))
    }
    return size + Int64(json.count)
  }

  func status() throws -> (objects: Int64?, bytes: Int64?) {
    let deadline = RedisDeadline(seconds: spec.operationTimeout)
    return try withConnection(deadline) { connection in
      guard
        case .integer(let keys) = try check(
          connection.command([.text("DBSIZE")], deadline: deadline))
      else {
        return (nil, nil)
      }
      let info =
        try check(connection.command([.text("INFO"), .text("memory")], deadline: deadline)).text
        ?? ""
      let used = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("used_memory:") }
        .flatMap { Checked.digits($0.dropFirst("used_memory:".count)) }
      return (keys, used)
    }
  }
}
