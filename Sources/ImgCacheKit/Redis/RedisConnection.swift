import CHiredis
import Dispatch
import FoundationEssentials
import Glibc

/// A reply from Redis (RESP2): arrays are read within a ``RedisReplyBudget``.
package enum RedisValue: Equatable, Sendable {
  case string(Data)
  case integer(Int64)
  case null
  case status(String)
  case error(String)
  indirect case array([RedisValue])

  package var text: String? {
    switch self {
    case .string(let data): return String(decoding: data, as: UTF8.self)
    case .status(let text): return text
    default: return nil
    }
  }
}

/// An argument of a command: bytes, or `size` bytes read from an open file (a body, streamed
/// to the socket rather than copied into memory).
package enum RedisArgument: Sendable {
  case bytes(Data)
  case file(descriptor: Int32, size: Int64)

  /// Text as bytes.
  package static func text(_ text: String) -> RedisArgument { .bytes(Data(text.utf8)) }
}

/// The end of an operation: every wait of every command of one lookup or write is bounded by
/// it, so a server that answers a byte at a time cannot hold an operation past its timeout.
package struct RedisDeadline: Sendable {
  let end: UInt64

  /// `seconds` from now.
  package init(seconds: TimeInterval) {
    end = DispatchTime.now().uptimeNanoseconds + UInt64(Checked.milliseconds(seconds)) * 1_000_000
  }

  /// Whole milliseconds left (rounded up), 0 once passed.
  package var milliseconds: Int32 {
    let now = DispatchTime.now().uptimeNanoseconds
    return now >= end ? 0 : Int32(clamping: (end - now + 999_999) / 1_000_000)
  }
}

/// A bulk reply longer than the caller accepts (the connection is then out of step: dropped).
package struct RedisReplyTooLarge: Error {}

/// What one reply may hold, whatever the server says: its bulk strings' bytes together, its
/// arrays' elements together, and how deep arrays nest. A reply past any of them throws
/// ``RedisReplyTooLarge`` (or a broken reply, for nesting) before more is read.
package struct RedisReplyBudget {
  /// Bytes of bulk strings left.
  var bytes: Int64
  /// Array elements left.
  var elements: Int64
  /// The deepest nesting of arrays read.
  static let maxDepth = 8
  /// The most elements a reply holds by default.
  package static let defaultElements: Int64 = 100_000
}

/// One connection to a Redis server, used by one caller at a time (``RedisClient`` lends it
/// out). hiredis connects it within the connect timeout; from then on its socket is
/// non-blocking and driven here, each wait bounded by the operation's ``RedisDeadline``, and
/// replies are read by a small RESP parser that streams a body straight into its file.
// @unchecked: a hiredis context (a C handle) and its socket, used by the one caller that
// took the connection out of the pool.
package final class RedisConnection: @unchecked Sendable {
  // @unchecked: the context and buffer are used by whichever caller holds the connection,
  // one at a time: the pool hands it out and takes it back.
  private let context: UnsafeMutablePointer<redisContext>
  let socket: Int32
  let display: String
  /// Bytes received and not parsed yet, from `position` on.
  var inbox = [UInt8]()
  var position = 0
  /// What one `recv` reads into, made once: appending 64 KiB of zeros to the inbox for each
  /// read cost a debug build milliseconds a reply, element by element.
  var chunk = [UInt8](repeating: 0, count: 64 * 1024)

  /// Connects to `endpoint` (within its connect timeout), authenticates, selects its
  /// database and names itself `name` (`CLIENT SETNAME`; a server that refuses is not
  /// asked again), within `deadline`.
  package init(_ endpoint: RedisEndpoint, name: String, deadline: RedisDeadline) throws {
    display = endpoint.display
    let connect = imgcache_redis_timeval(Checked.milliseconds(endpoint.connectTimeout))
    let made =
      endpoint.socket.map { redisConnectUnixWithTimeout($0, connect) }
      ?? redisConnectWithTimeout(
        endpoint.host ?? "127.0.0.1", Int32(clamping: endpoint.port), connect)
    guard let made, imgcache_redis_error_code(made) == 0 else {
      let text = String(cString: imgcache_redis_error_text(made))
      if let made { redisFree(made) }
      throw Self.failure(text, display: display)
    }
    context = made
    socket = made.pointee.fd
    // From here a throw runs deinit, which frees the context (and closes the socket).
    let flags = fcntl(socket, F_GETFL)
    guard flags >= 0, fcntl(socket, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw CacheError(.network, "\(display): cannot make the socket non-blocking")
    }
    try logIn(endpoint, name: name, deadline: deadline)
  }

  private func logIn(_ endpoint: RedisEndpoint, name: String, deadline: RedisDeadline) throws {
    if let password = endpoint.password {
      let arguments = ["AUTH"] + (endpoint.user.map { [$0] } ?? []) + [password]
      if case .error = try command(arguments.map(RedisArgument.text), deadline: deadline) {
        throw CacheError(.auth, "\(display): authentication refused")
      }
    }
    if endpoint.database != 0,
      case .error(let text) = try command(
        [.text("SELECT"), .text(String(endpoint.database))], deadline: deadline)
    {
      throw CacheError(.invalidInput, "\(display): \(Self.printable(text))")
    }
    // The name is for operators only: an error (an old server, a proxy) changes nothing.
    _ = try command([.text("CLIENT"), .text("SETNAME"), .text(name)], deadline: deadline)
  }

  deinit { redisFree(context) }

  /// Sends one command and reads its reply; a bulk reply longer than `maxReply` bytes throws
  /// ``RedisReplyTooLarge``.
  package func command(
    _ arguments: [RedisArgument], deadline: RedisDeadline, maxReply: Int64 = 1 << 20
  ) throws -> RedisValue {
    try send(arguments, deadline: deadline)
    return try reply(deadline: deadline, maxBulk: maxReply)
  }

  /// Sends one command whose reply is a bulk string, and writes that string into `output`
  /// as it arrives (never all of it in memory); returns its length, nil for a null reply.
  /// One longer than `maxSize` throws ``RedisReplyTooLarge`` before any of it is read.
  package func command(
    _ arguments: [RedisArgument], into output: Int32, maxSize: Int64, deadline: RedisDeadline
  ) throws -> Int64? {
    try send(arguments, deadline: deadline)
    return try streamBulk(into: output, maxSize: maxSize, deadline: deadline)
  }

  /// A transport failure: hiredis reports a connect timeout as "Resource temporarily
  /// unavailable" or "timed out".
  static func failure(_ text: String, display: String) -> CacheError {
    let lowered = text.lowercased()
    if lowered.contains("timed out") || lowered.contains("temporarily unavailable") {
      return CacheError(.network, "timed out (\(display))")
    }
    return CacheError(.network, "\(display): \(printable(text))")
  }

  /// A server's text as printed: no control characters, at most 200 characters.
  package static func printable(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.prefix(200).map { String($0).containsControlCharacters ? "?" : $0 }))
  }
}
