import CSQLite
import FoundationEssentials

/// How an entry's fields are written in its row from schema v9 (docs/design.md, On disk): what
/// the row can give back is not written twice, so the index of a million entries is half the
/// size it was. Each field has its writing (`…(_:)`, a database value) and its reading (`…(stored:)`),
/// and a reading gives back exactly what was written (but an empty content type, read as
/// none).
///
/// - `url`: NULL when it is the key (most entries).
/// - `file` (column `file_ext`): its extension when it is `ab/<digest>.<ext>` (`png`, a variant's `webp`: a few
///   bytes, and no parse of the key to read it back), ``""`` for `ab/<digest>` (a legacy
///   name), the whole name (with its `/`) otherwise.
/// - `content_type`: NULL when it is the MIME type of the entry's format; `''` when the server
///   sent none (or an empty one) for a body of a known format; the text otherwise.
/// - `last_modified`, `expires`, `date` (declared without a type): an integer, the seconds
///   since 1970, when the text is an IMF-fixdate written exactly as imgcache would write it
///   (``HTTPDate/canonicalSeconds(of:)``); the text otherwise (another form, a bad date).
/// - `sha256`: its 32 bytes when it is 64 hexadecimal digits, as written by imgcache or checked
///   at the boundary (lowercase); the text otherwise.
/// - `digest`, `digest_low`: the key's MD5 (``KeyDigest``) in two integers, the first 8 bytes
///   (indexed) and the last 8, big-endian.
enum StoredForm {
  static func url(_ url: String, key: String) -> SQLiteValue {
    url == key ? .null : url.sqliteValue
  }

  static func url(stored: String?, key: String) -> String { stored ?? key }

  /// `file` as its row keeps it: its extension when it is `ab/<digest>.<ext>` (`png`, a
  /// variant's `webp`), ``""`` when it is `ab/<digest>` (a legacy name), the whole name (with
  /// its `/`) otherwise.
  static func file(_ file: String, digest: KeyDigest) -> String {
    let stem = self.stem(digest)
    guard file.utf8.starts(with: stem.utf8) else { return file }
    let suffix = file.utf8.dropFirst(stem.utf8.count)
    guard let dot = suffix.first else { return "" }
    let ext = suffix.dropFirst()
    guard dot == UInt8(ascii: "."), !ext.isEmpty, !ext.contains(UInt8(ascii: "/")) else {
      return file
    }
    return String(ext) ?? file
  }

  /// The file a row keeps as `stored` (``file(_:digest:)``), written into one string.
  static func file(stored: String, digest: KeyDigest) -> String {
    if stored.utf8.contains(UInt8(ascii: "/")) { return stored }
    let count = stored.isEmpty ? 35 : 36 + stored.utf8.count
    return String(unsafeUninitializedCapacity: count) { out in
      digest.withBytes { bytes in
        Hex.write(
          UnsafeRawBufferPointer(rebasing: bytes.prefix(1)),
          into: UnsafeMutableBufferPointer(rebasing: out[0..<2]))
        out[2] = UInt8(ascii: "/")
        Hex.write(bytes, into: UnsafeMutableBufferPointer(rebasing: out[3..<35]))
      }
      if count > 35 {
        out[35] = UInt8(ascii: ".")
        _ = UnsafeMutableBufferPointer(rebasing: out[36...]).initialize(from: stored.utf8)
      }
      return count
    }
  }

  /// `ab/<32 hex digits>`: the name of a key's file but its extension.
  static func stem(_ digest: KeyDigest) -> String { file(stored: "", digest: digest) }

  static func contentType(_ type: String?, format: String?) -> SQLiteValue {
    guard let mime = format.flatMap(ImageFormat.init(rawValue:))?.mimeType else {
      return type.sqliteValue
    }
    return type == mime ? .null : (type ?? "").sqliteValue
  }

  static func contentType(stored: String?, format: String?) -> String? {
    guard let stored else { return format.flatMap(ImageFormat.init(rawValue:))?.mimeType }
    return stored.isEmpty ? nil : stored
  }

  static func httpDate(_ text: String?) -> SQLiteValue {
    guard let text else { return .null }
    return HTTPDate.canonicalSeconds(of: text).map { $0.sqliteValue } ?? text.sqliteValue
  }

  static func httpDate(stored row: some ColumnReader, at index: Int) throws -> String? {
    if let seconds = row.integer(index) {
      guard let text = HTTPDate.imfFixdate(seconds: seconds) else {
        throw SQLiteError(code: SQLITE_MISMATCH, message: "column \(index) is no date: \(seconds)")
      }
      return text
    }
    return try row.value(index)
  }

  static func sha256(_ hex: String?) -> SQLiteValue {
    hex.map { StoredSHA256($0).sqliteValue } ?? .null
  }

  static func sha256(stored row: some ColumnReader, at index: Int) throws -> String? {
    try StoredSHA256(stored: row, at: index)?.hex
  }

  /// The indexed half of a digest (`digest`); ``digestLow(_:)`` is the other (`digest_low`).
  static func digest(_ digest: KeyDigest) -> SQLiteValue { digest.high.sqliteValue }

  static func digestLow(_ digest: KeyDigest) -> SQLiteValue { digest.low.sqliteValue }

  /// The digest in columns `index` (`digest`) and `index + 1` (`digest_low`).
  static func digest(stored row: some ColumnReader, at index: Int) throws -> KeyDigest {
    KeyDigest(high: try row.value(index), low: try row.value(index + 1))
  }
}

/// A SHA-256 as a row keeps it (``StoredForm``): its 32 bytes when it is 64 lowercase hex
/// digits, else its text. Written out in hex only when asked for (a hit reads every row's,
/// and seldom looks at it).
struct StoredSHA256: Equatable, Sendable {
  private enum Storage: Equatable {
    case bytes(UInt64, UInt64, UInt64, UInt64)
    case text(String)
  }

  private let storage: Storage

  init(_ hex: String) {
    let lowercase = hex.utf8.allSatisfy { Hex.value(of: $0) != nil && !(65...70).contains($0) }
    guard hex.utf8.count == 64, lowercase, let bytes = Hex.decode(hex) else {
      storage = .text(hex)
      return
    }
    storage = bytes.withUnsafeBytes { Self.words($0) }
  }

  /// Column `index` of `row`: its bytes when it holds 32, its text otherwise; nil for NULL.
  init?(stored row: some ColumnReader, at index: Int) throws {
    if let words = row.withBlob(index, { $0.count == 32 ? Self.words($0) : nil }) ?? nil {
      storage = words
    } else if let text: String = try row.value(index) {
      storage = .text(text)
    } else {
      return nil
    }
  }

  private static func words(_ bytes: UnsafeRawBufferPointer) -> Storage {
    .bytes(
      bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
  }

  /// Lowercase hexadecimal (or the text kept).
  package var hex: String {
    switch storage {
    case .text(let text): return text
    case .bytes(let a, let b, let c, let d):
      return withUnsafeBytes(of: (a, b, c, d)) { Hex.encode($0) }
    }
  }

  var sqliteValue: SQLiteValue {
    switch storage {
    case .text(let text): return text.sqliteValue
    case .bytes(let a, let b, let c, let d):
      return withUnsafeBytes(of: (a, b, c, d)) { Data($0) }.sqliteValue
    }
  }
}
