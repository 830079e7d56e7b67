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
  /// new connection.
  private func withConnection<T>(_ body: (RedisConnection) throws -> T) throws -> T {
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
      database: database, connectTimeout: spec.connectTimeout,
      operationTimeout: spec.operationTimeout, display: display)
    let result = try body(connection)
    idle.withLock { $0.append(connection) }
    return result
  }

  private func check(_ value: RedisValue) throws -> RedisValue {
    if case .error(let text) = value {
      if text.hasPrefix("NOAUTH") || text.hasPrefix("WRONGPASS") {
        throw CacheError(.auth, "\(display): authentication refused")
      }
      throw CacheError(.network, "\(display): \(text)")
    }
    return value
  }

  func get(_ name: String, into path: String) throws -> RemoteMetadata? {
    let reply = try withConnection {
      try check($0.command([Data("HGETALL".utf8), Data("imgcache:\(name)".utf8)]))
    }
    guard case .array(let items) = reply, !items.isEmpty else { return nil }
    var fields = [String: Data]()
    var index = 0
    while index + 1 < items.count {
      if let key = items[index].text, case .string(let value) = items[index + 1] {
        fields[key] = value
      }
      index += 2
    }
    guard let body = fields["body"], let json = fields["meta"] else {
      throw RemoteEnvelope.corrupt("no body or metadata")
    }
    let metadata: RemoteMetadata
    do { metadata = try JSONDecoder().decode(RemoteMetadata.self, from: json) } catch {
      throw RemoteEnvelope.corrupt("unreadable metadata")
    }
    guard FileManager.default.createFile(atPath: path, contents: body) else {
      throw CacheError.posix("cannot write", path: path)
    }
    return metadata
  }

  func put(_ name: String, body path: String, metadata: RemoteMetadata) throws -> Int64 {
    guard let body = FileManager.default.contents(atPath: path) else {
      throw CacheError.posix("cannot read", path: path)
    }
    let json = try JSONEncoder().encode(metadata)
    _ = try withConnection {
      try check(
        $0.command([
          Data("HSET".utf8), Data("imgcache:\(name)".utf8), Data("body".utf8), body,
          Data("meta".utf8), json,
        ]))
    }
    return Int64(body.count + json.count)
  }

  func status() throws -> (objects: Int64?, bytes: Int64?) {
    try withConnection { connection in
      guard case .integer(let keys) = try check(connection.command([Data("DBSIZE".utf8)])) else {
        return (nil, nil)
      }
      let info = try check(connection.command([Data("INFO".utf8), Data("memory".utf8)])).text ?? ""
      let used = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("used_memory:") }
        .flatMap { Int64($0.dropFirst("used_memory:".count)) }
      return (keys, used)
    }
  }
}
