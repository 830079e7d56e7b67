import FoundationEssentials
import Glibc

/// RESP on the non-blocking socket: commands written (a file argument streamed from its
/// descriptor), replies parsed, each wait bounded by the operation's deadline.
extension RedisConnection {
  private static let crlf: [UInt8] = [13, 10]
  private static let block = 64 * 1024

  private func timedOut() -> CacheError { CacheError(.network, "timed out (\(display))") }

  private func broken(_ what: String) -> CacheError {
    CacheError(.network, "\(display): \(what)")
  }

  /// Waits until the socket is ready for `events`, or throws once `deadline` passed.
  private func wait(_ events: Int32, deadline: RedisDeadline) throws {
    while true {
      let left = deadline.milliseconds
      guard left > 0 else { throw timedOut() }
      var entry = pollfd(fd: socket, events: Int16(events), revents: 0)
      let ready = poll(&entry, 1, left)
      if ready > 0 { return }
      if ready == 0 { throw timedOut() }
      guard errno == EINTR else { throw broken(String(cString: strerror(errno))) }
    }
  }

  private func send(_ bytes: UnsafeRawBufferPointer, deadline: RedisDeadline) throws {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let sent = Glibc.send(socket, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      if sent > 0 {
        offset += sent
      } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        try wait(Int32(POLLOUT), deadline: deadline)
      } else {
        throw broken("cannot send: " + String(cString: strerror(errno)))
      }
    }
  }

  /// Writes one command; a file argument is read and sent 64 KiB at a time.
  package func send(_ arguments: [RedisArgument], deadline: RedisDeadline) throws {
    // Request, reply: anything left over from the last reply is the server out of step.
    guard position == inbox.count else { throw broken("unexpected bytes from the server") }
    inbox.removeAll(keepingCapacity: true)
    position = 0
    var pending = [UInt8]("*\(arguments.count)\r\n".utf8)
    for argument in arguments {
      switch argument {
      case .bytes(let data):
        pending += Array("$\(data.count)\r\n".utf8) + data + Self.crlf
      case .file(let descriptor, let size):
        pending += Array("$\(size)\r\n".utf8)
        try pending.withUnsafeBytes { try send($0, deadline: deadline) }
        pending.removeAll(keepingCapacity: true)
        try sendFile(descriptor, size: size, deadline: deadline)
        pending = Self.crlf
      }
    }
    try pending.withUnsafeBytes { try send($0, deadline: deadline) }
  }

  private func sendFile(_ descriptor: Int32, size: Int64, deadline: RedisDeadline) throws {
    var buffer = [UInt8](repeating: 0, count: Self.block)
    var left = size
    while left > 0 {
      let wanted = Int(min(Int64(Self.block), left))
      let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { throw CacheError.posix("cannot read a body to send", path: "data/") }
      try buffer.withUnsafeBytes {
        try send(UnsafeRawBufferPointer(rebasing: $0[..<got]), deadline: deadline)
      }
      left -= Int64(got)
    }
  }

  /// Reads what the socket has (at most 64 KiB) into the inbox, waiting for it.
  private func receive(deadline: RedisDeadline) throws {
    if position > 0 {
      inbox.removeFirst(position)
      position = 0
    }
    while true {
      let got = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if got > 0 {
        chunk.withUnsafeBufferPointer {
          inbox.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<got]))
        }
        return
      }
      if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        try wait(Int32(POLLIN), deadline: deadline)
        continue
      }
      throw got == 0
        ? broken("connection closed by the server")
        : broken("cannot receive: " + String(cString: strerror(errno)))
    }
  }

  /// The next line of the reply, without its CRLF (at most 64 KiB).
  private func line(deadline: RedisDeadline) throws -> ArraySlice<UInt8> {
    var searched = 0  // bytes after `position` already searched
    while true {
      var index = position + searched
      while index + 1 < inbox.count {
        if inbox[index] == 13 && inbox[index + 1] == 10 {
          let line = inbox[position..<index]
          position = index + 2
          return line
        }
        index += 1
      }
      searched = max(0, inbox.count - 1 - position)
      guard inbox.count - position < Self.block else { throw broken("a reply line over 64 KiB") }
      try receive(deadline: deadline)
    }
  }

  /// Reads one reply; bulk strings over `maxBulk` bytes together, or arrays over
  /// `maxElements` elements together, throw ``RedisReplyTooLarge``.
  package func reply(
    deadline: RedisDeadline, maxBulk: Int64,
    maxElements: Int64 = RedisReplyBudget.defaultElements
  ) throws -> RedisValue {
    var budget = RedisReplyBudget(bytes: maxBulk, elements: maxElements)
    return try reply(deadline: deadline, budget: &budget, depth: 0)
  }

  private func reply(deadline: RedisDeadline, budget: inout RedisReplyBudget, depth: Int) throws
    -> RedisValue
  {
    let header = try line(deadline: deadline)
    // Every line counts against the reply's bytes: a server cannot send endless status lines.
    guard Int64(header.count) <= budget.bytes else { throw RedisReplyTooLarge() }
    budget.bytes -= Int64(header.count)
    let text = String(decoding: header.dropFirst(), as: UTF8.self)
    switch header.first {
    case UInt8(ascii: "+"): return .status(text)
    case UInt8(ascii: "-"): return .error(text)
    case UInt8(ascii: ":"):
      guard let value = Int64(text) else { throw broken("malformed integer reply") }
      return .integer(value)
    case UInt8(ascii: "$"):
      if text == "-1" { return .null }
      guard let length = Checked.digits(text) else { throw broken("malformed bulk reply") }
      guard length <= budget.bytes else { throw RedisReplyTooLarge() }
      budget.bytes -= length
      let count = Int(length)
      while inbox.count - position < count + 2 { try receive(deadline: deadline) }
      let value = Data(inbox[position..<(position + count)])
      guard inbox[position + count] == 13, inbox[position + count + 1] == 10 else {
        throw broken("malformed bulk reply")
      }
      position += count + 2
      return .string(value)
    case UInt8(ascii: "*"):
      if text == "-1" { return .null }
      guard let count = Checked.digits(text) else { throw broken("malformed array reply") }
      guard count <= budget.elements else { throw RedisReplyTooLarge() }
      guard depth < RedisReplyBudget.maxDepth else { throw broken("arrays nested too deep") }
      budget.elements -= count
      var elements = [RedisValue]()
      elements.reserveCapacity(Int(min(count, 1_024)))
      for _ in 0..<count {
        elements.append(try reply(deadline: deadline, budget: &budget, depth: depth + 1))
      }
      return .array(elements)
    default:
      throw broken("unexpected reply type")
    }
  }

  /// Reads a bulk reply into `output` as it arrives; nil for a null reply.
  func streamBulk(into output: Int32, maxSize: Int64, deadline: RedisDeadline) throws -> Int64? {
    let header = try line(deadline: deadline)
    let text = String(decoding: header.dropFirst(), as: UTF8.self)
    switch header.first {
    case UInt8(ascii: "$"): break
    case UInt8(ascii: "-"): throw broken(Self.printable(text))
    default: throw broken("unexpected reply type")
    }
    if text == "-1" { return nil }
    guard let length = Checked.digits(text) else { throw broken("malformed bulk reply") }
    guard length <= maxSize else { throw RedisReplyTooLarge() }
    var left = length
    while left > 0 {
      if position == inbox.count { try receive(deadline: deadline) }
      let take = Int(min(left, Int64(inbox.count - position)))
      try inbox.withUnsafeBytes { bytes in
        let chunk = UnsafeRawBufferPointer(rebasing: bytes[position..<(position + take)])
        try FileIO.writeAll(output, chunk, display: "a remote object in tmp/")
      }
      position += take
      left -= Int64(take)
      if position == inbox.count {
        inbox.removeAll(keepingCapacity: true)
        position = 0
      }
    }
    while inbox.count - position < 2 { try receive(deadline: deadline) }
    guard inbox[position] == 13, inbox[position + 1] == 10 else {
      throw broken("malformed bulk reply")
    }
    position += 2
    return length
  }
}

extension RedisConnection {
  /// Whether a reply can be read now: bytes already received, or the socket readable within
  /// `milliseconds`. A closed connection throws.
  package func hasInput(waiting milliseconds: Int32) throws -> Bool {
    if position < inbox.count { return true }
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, milliseconds)
    if ready < 0 && errno != EINTR {
      throw CacheError(.network, "\(display): cannot wait for a message")
    }
    return ready > 0
  }
}
