import Dispatch
import Synchronization

/// The connections one role of imgcache keeps to one Redis server (docs/fleet.md,
/// Connections): idle ones reused, at most `limit` open at once (a caller past it waits for
/// one, within its deadline), each named `imgcache:ROLE` on the server (`CLIENT LIST` shows
/// who is who). A failed connection is dropped; an idle one the server closed meanwhile (its
/// `timeout`, a NAT) gets one retry on a new connection. Scripts run by name
/// (``run(_:keys:_:deadline:maxReply:)``).
///
/// Lock rule: `idle` guards the idle connections; a connection is taken out, used outside the
/// lock, and put back.
package final class RedisClient: RedisCommands {
  /// The server.
  package let endpoint: RedisEndpoint
  /// What the connections are for (`queue`, `locks`, `hosts`, `objects`, …).
  package let role: String
  private let idle = Mutex<[RedisConnection]>([])
  /// Connections that may be open at once; nil: as many as callers.
  private let slots: DispatchSemaphore?

  /// A client of `endpoint` for `role`, with at most `limit` connections (nil: no limit).
  package init(_ endpoint: RedisEndpoint, role: String, limit: Int? = 1) {
    (self.endpoint, self.role) = (endpoint, role)
    slots = limit.map { DispatchSemaphore(value: max(1, $0)) }
  }

  /// Runs `body` on an idle connection, or a new one, all by `deadline`.
  package func withConnection<T>(
    _ deadline: RedisDeadline, _ body: (RedisConnection) throws -> T
  ) throws -> T {
    if let slots {
      guard slots.wait(timeout: deadline.dispatchTime) == .success else {
        throw CacheError(.network, "timed out (\(endpoint.display): its \(role) connection busy)")
      }
    }
    defer { slots?.signal() }
    if let pooled = idle.withLock({ $0.popLast() }) {
      do {
        let result = try body(pooled)
        idle.withLock { $0.append(pooled) }
        return result
      } catch let error as CacheError where error.kind == .network && !error.isTimeout {
        // Dropped: a new connection below.
      }
    }
    let connection = try connect(deadline)
    let result = try body(connection)
    idle.withLock { $0.append(connection) }
    return result
  }

  /// A new connection of this role, outside the pool (a subscriber's: it reads messages for
  /// as long as its owner keeps it), made by `deadline`.
  package func connect(_ deadline: RedisDeadline) throws -> RedisConnection {
    try RedisConnection(endpoint, name: "imgcache:" + role, deadline: deadline)
  }

  /// Puts back a connection whose reply was read whole (still in step) though its caller
  /// throws.
  package func keep(_ connection: RedisConnection) {
    idle.withLock { $0.append(connection) }
  }

  /// `value`, or the error it is: a refused login as `.auth`, anything else as `.network`.
  package func check(_ value: RedisValue) throws -> RedisValue {
    if case .error(let text) = value {
      if text.hasPrefix("NOAUTH") || text.hasPrefix("WRONGPASS") {
        throw CacheError(.auth, "\(endpoint.display): authentication refused")
      }
      throw CacheError(.network, "\(endpoint.display): \(RedisConnection.printable(text))")
    }
    return value
  }

  /// Sends one command and returns its checked reply, by `deadline`.
  package func call(
    _ words: [RedisArgument], deadline: RedisDeadline, maxReply: Int64 = 1 << 20
  ) throws -> RedisValue {
    try withConnection(deadline) {
      try check($0.command(words, deadline: deadline, maxReply: maxReply))
    }
  }

  /// Runs `script` by its SHA-1 on `keys` and `arguments`; a server that does not know it
  /// (`NOSCRIPT`) is sent its text once (`SCRIPT LOAD`), and asked again.
  package func run(
    _ script: RedisScript, keys: [String], _ arguments: [RedisArgument],
    deadline: RedisDeadline, maxReply: Int64 = 1 << 20
  ) throws -> RedisValue {
    let words =
      [.text("EVALSHA"), .text(script.sha), .text(String(keys.count))]
      + keys.map(RedisArgument.text) + arguments
    return try withConnection(deadline) { connection in
      let first = try connection.command(words, deadline: deadline, maxReply: maxReply)
      guard case .error(let text) = first, text.hasPrefix("NOSCRIPT") else {
        return try check(first)
      }
      let loaded = try check(
        connection.command(
          [.text("SCRIPT"), .text("LOAD"), .text(script.source)], deadline: deadline))
      guard loaded.text == script.sha else {
        throw CacheError(.network, "\(endpoint.display): a script loaded under another name")
      }
      return try check(connection.command(words, deadline: deadline, maxReply: maxReply))
    }
  }
}

/// What a part of the fleet asks of Redis: commands and scripts, each reply checked (an error
/// reply thrown). ``RedisClient`` is the real one; tests script one to feed the queue's
/// decisions any reply, hostile ones included, with no server.
package protocol RedisCommands: Sendable {
  /// Sends one command and returns its checked reply, by `deadline`.
  func call(_ words: [RedisArgument], deadline: RedisDeadline, maxReply: Int64) throws
    -> RedisValue
  /// Runs `script` on `keys` and `arguments` and returns its checked reply, by `deadline`.
  func run(
    _ script: RedisScript, keys: [String], _ arguments: [RedisArgument],
    deadline: RedisDeadline, maxReply: Int64
  ) throws -> RedisValue
}

extension RedisDeadline {
  /// The deadline on Dispatch's clock (the same uptime clock).
  var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: end) }
}

extension CacheError {
  /// Whether a remote operation failed by running out of time.
  package var isTimeout: Bool { kind == .network && detail.hasPrefix("timed out") }
}
