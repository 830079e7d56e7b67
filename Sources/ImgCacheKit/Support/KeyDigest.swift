import FoundationEssentials

/// The MD5 of a cache key's UTF-8 bytes: the stem of its file's name (`ab/<32 hex digits>…`,
/// sharded by the first byte) and, from schema v9, how the index finds its entry (``high``,
/// the first 8 bytes, in the indexed `digest` column; then the key is compared: docs/design.md,
/// On disk). Two keys with one MD5 would name one file; no imgcache key has been shown to.
public struct KeyDigest: Hashable, Sendable {
  // The 16 bytes as they come, in two words: `withBytes` hands them back in the same order.
  private var first: UInt64
  private var second: UInt64

  /// The digest of `key`.
  public init(key: String) {
    var key = key
    (first, second) = (0, 0)
    key.withUTF8 { bytes in
      withUnsafeMutableBytes(of: &self) { MD5.digest(UnsafeRawBufferPointer(bytes), into: $0) }
    }
  }

  /// The digest whose 16 bytes are `bytes`; nil for any other length.
  package init?(bytes: UnsafeRawBufferPointer) {
    guard bytes.count == 16 else { return nil }
    first = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
    second = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
  }

  /// The digest written as `hex`: 32 hexadecimal digits, either case; nil otherwise.
  package init?(hex: some StringProtocol) {
    guard let bytes = Hex.decode(hex), let digest = bytes.withUnsafeBytes(KeyDigest.init(bytes:))
    else { return nil }
    self = digest
  }

  /// The digest whose first 8 bytes, big-endian, are `high` and last 8 are `low` (``high``,
  /// ``low``).
  package init(high: Int64, low: Int64) {
    first = UInt64(bitPattern: high).bigEndian
    second = UInt64(bitPattern: low).bigEndian
  }

  /// The first 8 bytes as a big-endian signed integer: what the index keeps and searches
  /// (SQLite compares integers on its fastest path). Its top byte is the shard.
  package var high: Int64 { Int64(bitPattern: UInt64(bigEndian: first)) }
  /// The last 8 bytes as a big-endian signed integer.
  package var low: Int64 { Int64(bitPattern: UInt64(bigEndian: second)) }

  /// Calls `body` with the 16 bytes.
  package func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try withUnsafeBytes(of: self, body)
  }

  /// Lowercase hexadecimal, 32 digits.
  public var hex: String { withBytes { Hex.encode($0) } }
}

extension Hex {
  /// The value of one hexadecimal digit, either case; nil for any other byte.
  package static func value(of digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// The bytes written as `hex` (an even number of digits, either case); nil otherwise.
  package static func decode(_ hex: some StringProtocol) -> [UInt8]? {
    let units = Array(hex.utf8)
    guard units.count % 2 == 0 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(units.count / 2)
    var index = 0
    while index < units.count {
      guard let high = value(of: units[index]), let low = value(of: units[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }
}
