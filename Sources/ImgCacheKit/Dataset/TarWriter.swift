import FoundationEssentials
import Glibc

/// Writes a POSIX ustar archive (what WebDataset reads) to a descriptor, buffered: a 512-byte
/// header per member, its bytes padded to 512, two zero blocks at the end. Names are a
/// sample's key and extension, well under ustar's 100 bytes; a member over ustar's 8 GiB
/// limit is refused.
package struct TarWriter {
  private let descriptor: Int32
  private let display: String
  private var buffer = [UInt8]()
  private static let block = 512
  private static let flushSize = 1 << 20

  /// A writer to `descriptor` (an empty file), called `display` in errors.
  package init(descriptor: Int32, display: String) {
    (self.descriptor, self.display) = (descriptor, display)
    buffer.reserveCapacity(Self.flushSize + Self.block)
  }

  /// Adds a regular file `name` holding `bytes`, dated `modified` (Unix seconds).
  package mutating func add(name: String, bytes: [UInt8], modified: Int64) throws {
    guard name.utf8.count < 100, !name.utf8.contains(0) else {
      throw CacheError(.invalidInput, "tar member name too long: \(name.prefix(120))")
    }
    guard bytes.count < 1 << 33 else {
      throw CacheError(.tooLarge, "\(name) is larger than a tar member can be (8 GiB)")
    }
    buffer.append(contentsOf: Self.header(name: name, size: bytes.count, modified: modified))
    if bytes.count >= Self.flushSize {
      // A large body goes straight out, not through the buffer.
      try flush()
      try bytes.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, display: display) }
    } else {
      buffer.append(contentsOf: bytes)
    }
    let padding = (Self.block - bytes.count % Self.block) % Self.block
    buffer.append(contentsOf: repeatElement(0, count: padding))
    if buffer.count >= Self.flushSize { try flush() }
  }

  /// Writes the end-of-archive blocks and whatever is buffered.
  package mutating func finish() throws {
    buffer.append(contentsOf: repeatElement(0, count: 2 * Self.block))
    try flush()
  }

  private mutating func flush() throws {
    try buffer.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, display: display) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// The ustar header of a regular file: mode 0644, owner 0, numbers in octal.
  static func header(name: String, size: Int, modified: Int64) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: block)
    func put(_ text: String, at offset: Int) {
      for (position, byte) in text.utf8.enumerated() { header[offset + position] = byte }
    }
    func octal(_ value: Int64, at offset: Int, width: Int) {
      let digits = String(max(0, value), radix: 8)
      put(String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset)
    }
    put(name, at: 0)
    octal(0o644, at: 100, width: 8)
    octal(0, at: 108, width: 8)
    octal(0, at: 116, width: 8)
    octal(Int64(size), at: 124, width: 12)
    octal(min(max(0, modified), 0o77777777777), at: 136, width: 12)
    put("        ", at: 148)  // the checksum counts its own field as spaces
    header[156] = UInt8(ascii: "0")
    put("ustar\u{0}00", at: 257)
    let sum = header.reduce(0) { $0 + Int64($1) }
    octal(sum, at: 148, width: 7)
    (header[154], header[155]) = (0, UInt8(ascii: " "))
    return header
  }
}
