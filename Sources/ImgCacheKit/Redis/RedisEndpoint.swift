import FoundationEssentials

/// Where a Redis server is and how to log in, read once from its URL: `redis://HOST[:PORT][/DB]`
/// (`redis://SECRET@HOST` gives a password alone, `redis://USER:SECRET@HOST` both),
/// `redis+unix:/PATH`, or `redis+unix://[SECRET@]/PATH[?db=N]`.
package struct RedisEndpoint: Sendable {
  let host: String?
  let port: Int
  let socket: String?
  let user: String?
  let password: String?
  let database: Int
  /// The server as printed: never its secret.
  package let display: String
  /// How long connecting may take, in seconds.
  package let connectTimeout: TimeInterval

  /// The server at `url`, printed as `display`; `.invalidInput` for a URL that is not one.
  package init(url: String, display: String, connectTimeout: TimeInterval) throws {
    (self.display, self.connectTimeout) = (display, connectTimeout)
    let bad = CacheError(.invalidInput, "remote storage \(display): malformed Redis URL")
    if url.hasPrefix("redis+unix:") && !url.hasPrefix("redis+unix://") {
      (host, port, user, password, database) = (nil, 0, nil, nil, 0)
      socket = String(url.dropFirst("redis+unix:".count))
      guard socket?.hasPrefix("/") == true else { throw bad }
      return
    }
    let normalized = url.replacing("redis+unix://", with: "redis://")
    guard let parts = URLComponents(string: normalized) else { throw bad }
    if let secret = parts.password {
      (user, password) = (parts.user?.isEmpty == false ? parts.user : nil, secret)
    } else {
      (user, password) = (nil, parts.user)
    }
    if url.hasPrefix("redis+unix://") {
      (host, port, socket) = (nil, 0, parts.path)
      database = parts.queryItems?.first { $0.name == "db" }?.value.flatMap { Int($0) } ?? 0
    } else {
      guard let name = parts.host, !name.isEmpty else { throw bad }
      (host, port, socket) = (name, parts.port ?? 6379, nil)
      let path = parts.path.trimming { $0 == "/" }
      guard path.isEmpty || Int(path) != nil else { throw bad }
      database = Int(path) ?? 0
    }
  }
}
