/// The fleet's Redis (docs/fleet.md): the server of `--queue`, else the first Redis backend of
/// `remote_storage`; each part of the fleet (the queue, the key locks, the hosts' politeness
/// and its subscription) its own role on it, one connection each (docs/fleet.md, Connections).
enum FleetRedis {
  /// The Redis of `queue`, else the first of `remote` (without `servers=`); `.invalidInput`
  /// when there is none.
  static func spec(queue: String?, remote: [RemoteSpec]) throws -> RemoteSpec {
    if let queue {
      let spec = try RemoteSpec.parse(queue)
      guard spec.kind == .redis, spec.servers.isEmpty else {
        throw CacheError(
          .invalidInput, "--queue \(spec.label): expected one redis:// or redis+unix: server")
      }
      return spec
    }
    guard let first = remote.first(where: { $0.kind == .redis && $0.servers.isEmpty }) else {
      throw CacheError(
        .invalidInput,
        "no job queue: give --queue redis://HOST, or a redis:// backend in remote_storage")
    }
    return first
  }

  /// A client of the fleet's Redis for `role`, with one connection.
  static func client(queue: String?, remote: [RemoteSpec], role: String) throws -> RedisClient {
    let spec = try spec(queue: queue, remote: remote)
    let endpoint = try RedisEndpoint(
      url: spec.url, display: spec.label(of: spec.url), connectTimeout: spec.connectTimeout)
    return RedisClient(endpoint, role: role)
  }
}
