import FoundationEssentials

/// A stream entry ID, `<milliseconds>-<sequence>`, read strictly from a server's reply.
package struct StreamID: Hashable, Comparable, Sendable, CustomStringConvertible {
  package let milliseconds: UInt64
  package let sequence: UInt64

  /// The ID `text` spells; nil for anything else (a sign, a space, a number past 64 bits).
  package init?(_ text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let milliseconds = Checked.digits(parts[0]),
      let sequence = Checked.digits(parts[1])
    else { return nil }
    (self.milliseconds, self.sequence) = (UInt64(milliseconds), UInt64(sequence))
  }

  package var description: String { "\(milliseconds)-\(sequence)" }

  package static func < (lhs: StreamID, rhs: StreamID) -> Bool {
    (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
  }
}

/// One entry of a stream: its ID and its fields (names UTF-8, values bytes). `fields` is nil
/// for an entry deleted while it was pending (XREADGROUP of history, XAUTOCLAIM on Redis 6).
package struct StreamEntry: Equatable, Sendable {
  package let id: StreamID
  package let fields: [String: Data]?
}

/// What XPENDING's summary form says of a group: entries delivered and not acknowledged, and
/// how many each consumer holds.
package struct PendingSummary: Equatable, Sendable {
  package let count: Int64
  package let consumers: [String: Int64]
}

/// One row of XPENDING's extended form: an entry delivered and not acknowledged, who holds it,
/// how long since it was delivered or renewed, and how many times it was delivered.
package struct PendingEntry: Equatable, Sendable {
  package let id: StreamID
  package let consumer: String
  package let idle: Int64
  package let deliveries: Int64
}

/// The replies of the stream commands a work queue needs (XREADGROUP, XAUTOCLAIM, XPENDING,
/// XRANGE), read through the untrusted-input boundary: a reply of another shape is a
/// `.network` error naming the command, never a trap, and never an entry made up.
package enum RedisStreams {
  /// The entries of an XRANGE reply, or of one stream in an XREADGROUP reply.
  package static func entries(_ value: RedisValue, _ command: String) throws -> [StreamEntry] {
    guard case .array(let items) = value else { throw malformed(command) }
    return try items.map { item in
      guard case .array(let pair) = item, pair.count == 2, case .string(let raw) = pair[0],
        let id = StreamID(String(decoding: raw, as: UTF8.self))
      else { throw malformed(command) }
      switch pair[1] {
      case .null: return StreamEntry(id: id, fields: nil)
      case .array(let flat):
        guard flat.count % 2 == 0 else { throw malformed(command) }
        var fields = [String: Data]()
        for index in stride(from: 0, to: flat.count, by: 2) {
          guard case .string(let name) = flat[index], case .string(let value) = flat[index + 1],
            let text = String(validating: name, as: UTF8.self)
          else { throw malformed(command) }
          // The first of a repeated field counts.
          if fields[text] == nil { fields[text] = value }
        }
        return StreamEntry(id: id, fields: fields)
      default: throw malformed(command)
      }
    }
  }

  /// The entries an XREADGROUP of one `stream` delivered; none on a timeout (a null reply).
  package static func readGroup(_ value: RedisValue, stream: String) throws -> [StreamEntry] {
    if case .null = value { return [] }
    guard case .array(let streams) = value else { throw malformed("XREADGROUP") }
    var found = [StreamEntry]()
    for item in streams {
      guard case .array(let pair) = item, pair.count == 2, case .string(let name) = pair[0]
      else { throw malformed("XREADGROUP") }
      // Another stream's entries were not asked for: never taken as this one's.
      guard String(decoding: name, as: UTF8.self) == stream else {
        throw malformed("XREADGROUP")
      }
      found += try entries(pair[1], "XREADGROUP")
    }
    return found
  }

  /// An XAUTOCLAIM reply: the cursor to go on from (`0-0` when the scan is over), the entries
  /// claimed, and the IDs of pending entries found deleted (Redis 7; none from Redis 6.2).
  package static func autoClaim(_ value: RedisValue) throws
    -> (next: StreamID, entries: [StreamEntry], deleted: [StreamID])
  {
    guard case .array(let parts) = value, parts.count == 2 || parts.count == 3,
      case .string(let cursor) = parts[0],
      let next = StreamID(String(decoding: cursor, as: UTF8.self))
    else { throw malformed("XAUTOCLAIM") }
    let claimed = try entries(parts[1], "XAUTOCLAIM")
    var deleted = [StreamID]()
    if parts.count == 3 {
      guard case .array(let ids) = parts[2] else { throw malformed("XAUTOCLAIM") }
      for id in ids {
        guard case .string(let raw) = id,
          let parsed = StreamID(String(decoding: raw, as: UTF8.self))
        else { throw malformed("XAUTOCLAIM") }
        deleted.append(parsed)
      }
    }
    return (next, claimed, deleted)
  }

  /// XPENDING's summary form: `[count, first, last, [[consumer, count]…]]` (nulls when none).
  package static func pendingSummary(_ value: RedisValue) throws -> PendingSummary {
    guard case .array(let parts) = value, parts.count == 4, case .integer(let count) = parts[0],
      count >= 0
    else { throw malformed("XPENDING") }
    var consumers = [String: Int64]()
    switch parts[3] {
    case .null: break
    case .array(let rows):
      for row in rows {
        guard case .array(let pair) = row, pair.count == 2, case .string(let name) = pair[0],
          case .string(let held) = pair[1], let consumer = String(validating: name, as: UTF8.self),
          let number = Checked.digits(String(decoding: held, as: UTF8.self))
        else { throw malformed("XPENDING") }
        consumers[consumer, default: 0] += number
      }
    default: throw malformed("XPENDING")
    }
    return PendingSummary(count: count, consumers: consumers)
  }

  /// XPENDING's extended form: `[[id, consumer, idle, deliveries]…]`.
  package static func pendingEntries(_ value: RedisValue) throws -> [PendingEntry] {
    guard case .array(let rows) = value else { throw malformed("XPENDING") }
    return try rows.map { row in
      guard case .array(let fields) = row, fields.count == 4, case .string(let raw) = fields[0],
        let id = StreamID(String(decoding: raw, as: UTF8.self)), case .string(let name) = fields[1],
        let consumer = String(validating: name, as: UTF8.self),
        case .integer(let idle) = fields[2], idle >= 0, case .integer(let count) = fields[3],
        count >= 0
      else { throw malformed("XPENDING") }
      return PendingEntry(id: id, consumer: consumer, idle: idle, deliveries: count)
    }
  }

  private static func malformed(_ command: String) -> CacheError {
    CacheError(.network, "Redis: a malformed reply to \(command)")
  }
}
