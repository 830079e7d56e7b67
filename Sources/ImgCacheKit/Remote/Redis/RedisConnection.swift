import CHiredis
import Foundation

/// A reply from Redis, copied out of hiredis' reply tree.
enum RedisValue {
  case string(Data)
  case array([RedisValue])
  case integer(Int64)
  case null
  case status(String)
  case error(String)

  var text: String? {
    switch self {
    case .string(let data): return String(decoding: data, as: UTF8.self)
    case .status(let text): return text
    default: return nil
    }
  }
}

/// One hiredis connection, used by one caller at a time (``RedisServer`` lends it out).
final class RedisConnection: @unchecked Sendable {
  // @unchecked: the context is used by whichever caller holds the connection, one at a time:
  // the pool hands it out and takes it back.
  private let context: UnsafeMutablePointer<redisContext>
  private let where_: String

  /// Connects (within `connectTimeout`), sets `operationTimeout` on every later command,
  /// authenticates and selects `database`.
  init(
    host: String?, port: Int, socket: String?, user: String?, password: String?, database: Int,
    connectTimeout: TimeInterval, operationTimeout: TimeInterval, display: String
  ) throws {
    where_ = display
    let connect = imgcache_redis_timeval(Checked.milliseconds(connectTimeout))
    let made =
      socket.map { redisConnectUnixWithTimeout($0, connect) }
      ?? redisConnectWithTimeout(host ?? "127.0.0.1", Int32(clamping: port), connect)
    guard let made, imgcache_redis_error_code(made) == 0 else {
      let text = String(cString: imgcache_redis_error_text(made))
      if let made { redisFree(made) }
      throw Self.failure(text, display: display)
    }
    context = made
    redisSetTimeout(context, imgcache_redis_timeval(Checked.milliseconds(operationTimeout)))
    // From here a throw runs deinit, which frees the context.
    if let password {
      let arguments = ["AUTH"] + (user.map { [$0] } ?? []) + [password]
      if case .error = try command(arguments.map { Data($0.utf8) }) {
        throw CacheError(.auth, "\(display): authentication refused")
      }
    }
    if database != 0,
      case .error(let text) = try command([Data("SELECT".utf8), Data("\(database)".utf8)])
    {
      throw CacheError(.invalidInput, "\(display): \(text)")
    }
  }

  deinit { redisFree(context) }

  /// Runs one command (binary-safe arguments) and returns its reply.
  func command(_ arguments: [Data]) throws -> RedisValue {
    var pointers = [UnsafePointer<CChar>?]()
    var lengths = [Int]()
    let buffers = arguments.map { data -> UnsafeMutableRawBufferPointer in
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: max(1, data.count), alignment: 1)
      _ = data.copyBytes(to: buffer.bindMemory(to: UInt8.self))
      return buffer
    }
    defer { buffers.forEach { $0.deallocate() } }
    for (buffer, data) in zip(buffers, arguments) {
      pointers.append(
        buffer.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) })
      lengths.append(data.count)
    }
    guard let raw = redisCommandArgv(context, Int32(arguments.count), &pointers, &lengths) else {
      throw Self.failure(String(cString: imgcache_redis_error_text(context)), display: where_)
    }
    let reply = raw.assumingMemoryBound(to: redisReply.self)
    defer { freeReplyObject(raw) }
    return Self.value(reply)
  }

  private static func value(_ reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
    let r = reply.pointee
    switch r.type {
    case imgcache_redis_reply_string:
      return .string(r.str.map { Data(bytes: $0, count: r.len) } ?? Data())
    case imgcache_redis_reply_array:
      return .array(
        (0..<r.elements).compactMap { index in
          imgcache_redis_element(reply, index).map(value)
        })
    case imgcache_redis_reply_integer: return .integer(r.integer)
    case imgcache_redis_reply_status: return .status(r.str.map { String(cString: $0) } ?? "")
    case imgcache_redis_reply_error: return .error(r.str.map { String(cString: $0) } ?? "error")
    default: return .null
    }
  }

  /// A transport failure: hiredis reports a timeout as "Resource temporarily unavailable".
  static func failure(_ text: String, display: String) -> CacheError {
    let lowered = text.lowercased()
    if lowered.contains("timed out") || lowered.contains("temporarily unavailable") {
      return CacheError(.network, "timed out (\(display))")
    }
    return CacheError(.network, "\(display): \(text)")
  }
}
