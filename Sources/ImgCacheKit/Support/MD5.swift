import COpenSSL

/// MD5 digests through OpenSSL's EVP interface.
public enum MD5 {
  /// Returns the 16 bytes of the MD5 of `bytes`.
  public static func digest<Bytes: Sequence>(of bytes: Bytes) -> [UInt8]
  where Bytes.Element == UInt8 {
    let input = Array(bytes)
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = input.withUnsafeBytes { raw in
      EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_md5(), nil)
    }
    precondition(ok == 1 && length == 16, "OpenSSL EVP_Digest(MD5) failed")
    return Array(digest.prefix(16))
  }

  /// Returns the lowercase hexadecimal MD5 of `bytes`.
  public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digest = self.digest(of: bytes)
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(32)
    for byte in digest.prefix(16) {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Returns the lowercase hexadecimal MD5 of the UTF-8 bytes of `string`.
  public static func hex(of string: String) -> String { hex(of: string.utf8) }
}
