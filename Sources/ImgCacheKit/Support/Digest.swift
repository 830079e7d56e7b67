import COpenSSL
import Dispatch
import FoundationEssentials
import Glibc

/// MD5 digests through OpenSSL's one-shot MD5 (``imgcache_md5`` in the COpenSSL shim).
public enum MD5 {
  /// Returns the 16 bytes of the MD5 of `bytes`.
  public static func digest<Bytes: Sequence>(of bytes: Bytes) -> [UInt8]
  where Bytes.Element == UInt8 {
    // A native string's bytes are hashed where they are: copying them and the digest into
    // arrays cost more than OpenSSL's MD5 of a URL.
    if let digest = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) {
      return digest
    }
    return Array(bytes).withUnsafeBytes(digest)
  }

  /// Writes the MD5 of `input` to `output`, which holds 16 bytes at least.
  static func digest(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
    precondition(output.count >= 16, "an MD5 needs 16 bytes")
    imgcache_md5(
      input.baseAddress, input.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self))
  }

  private static func digest(_ input: UnsafeRawBufferPointer) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
      digest(input, into: UnsafeMutableRawBufferPointer(buffer))
      count = 16
    }
  }

  /// Returns the lowercase hexadecimal MD5 of `bytes`.
  public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
    Hex.encode(digest(of: bytes))
  }

  /// Returns the lowercase hexadecimal MD5 of the UTF-8 bytes of `string`.
  public static func hex(of string: String) -> String { hex(of: string.utf8) }

  /// Returns the lowercase hexadecimal MD5 of the file at `path`, read a block at a time.
  package static func hex(ofFileAt path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(fd) }
    var digest = [UInt8](repeating: 0, count: 16)
    guard imgcache_md5_descriptor(fd, &digest) == 0 else {
      throw CacheError.posix("cannot read", path: path)
    }
    return Hex.encode(digest)
  }
}

/// SHA-1 through OpenSSL's `SHA1`: only to name a Redis script as Redis does (`EVALSHA`),
/// never to check a body.
package enum SHA1 {
  /// Returns the lowercase hexadecimal SHA-1 of `bytes`.
  package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    var digest = [UInt8](repeating: 0, count: 20)
    Array(bytes).withUnsafeBytes { imgcache_sha1($0.baseAddress, $0.count, &digest) }
    return Hex.encode(digest)
  }
}

/// SHA-256 through OpenSSL's `SHA256_*` functions.
public enum SHA256 {
  /// Returns the lowercase hexadecimal SHA-256 of `bytes`.
  public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let hasher = SHA256Stream()
    let input = Array(bytes)
    input.withUnsafeBytes { hasher.update($0) }
    return hasher.finish()
  }

  /// The SHA-256 of no bytes (S3's `x-amz-content-sha256` for a request without a body).
  package static let empty = hex(of: [UInt8]())

  /// Returns the lowercase hexadecimal SHA-256 of the file at `path` followed by `trailer`.
  package static func hex(ofFileAt path: String, then trailer: Data = Data()) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(fd) }
    return try hex(readingFrom: fd, then: trailer)
  }

  /// Returns the lowercase hexadecimal SHA-256 of what is left to read from `descriptor`,
  /// then `trailer`, read 256 KiB at a time; `inspect` sees each block read (its own code,
  /// called with no lock).
  package static func hex(
    readingFrom descriptor: Int32, then trailer: Data = Data(),
    inspect: (UnsafeRawBufferPointer) -> Void = { _ in }
  ) throws -> String {
    let hasher = SHA256Stream()
    var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { throw CacheError.posix("cannot read", path: "descriptor \(descriptor)") }
      if count == 0 {
        trailer.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
      }
      buffer.withUnsafeBytes { bytes in
        let block = UnsafeRawBufferPointer(rebasing: bytes[..<count])
        inspect(block)
        hasher.update(block)
      }
    }
  }
}

/// An incremental SHA-256, fed while a body streams in so that no second read is needed.
///
/// It owns an OpenSSL context, used by one thread at a time: a transfer feeds it only through
/// ``SHA256Stream/queue``, a serial queue, so hashing overlaps receiving on another core.
// @unchecked: an OpenSSL context (C memory), fed by one thread at a time (a serial queue).
package final class SHA256Stream: @unchecked Sendable {
  /// The serial queue every transfer's hashing runs on.
  package static let queue = DispatchQueue(label: "imgcache.sha256", qos: .userInitiated)

  private let context = UnsafeMutablePointer<SHA256_CTX>.allocate(capacity: 1)

  package init() { reset() }

  deinit { context.deallocate() }

  /// Starts over, for a retried transfer.
  package func reset() { imgcache_sha256_reset(context) }

  /// Adds `bytes`.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    imgcache_sha256_update(context, base, bytes.count)
  }

  /// The digest of everything added, as lowercase hex; the stream starts over after.
  package func finish() -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    imgcache_sha256_finish(context, &digest)
    reset()
    return Hex.encode(digest)
  }
}

/// Lowercase hexadecimal.
package enum Hex {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// `bytes` in lowercase hex, two digits a byte (`printf`'s `%02x` for each).
  package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String
  where Bytes.Element == UInt8 {
    if let text = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
      return text
    }
    return Array(bytes).withUnsafeBytes { encode($0) }
  }

  /// `bytes` in lowercase hex, written into one string (a 32-byte SHA-256 read from every row).
  package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      write(bytes, into: out)
      return bytes.count * 2
    }
  }

  /// Writes `bytes` in lowercase hex to the start of `out` (two bytes each). Not generic: it
  /// is called from the layers above on every hit, where a generic body from another module
  /// runs unspecialized (3,800 instructions a file name, against about 300).
  package static func write(
    _ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>
  ) {
    var position = out.startIndex
    for byte in bytes {
      out[position] = digits[Int(byte >> 4)]
      out[position + 1] = digits[Int(byte & 0x0f)]
      position += 2
    }
  }
}
