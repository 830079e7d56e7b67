import Foundation
import GRDB

/// How an entry's fields are written in its row from schema v9 (docs/design.md, On disk): what
/// the row can give back is not written twice, so the index of a million entries is half the
/// size it was. Each field has its writing (`…(_:)`, a database value) and its reading (`…(stored:)`),
/// and a reading gives back exactly what was written.
///
/// - `url`: NULL when it is the key (most entries).
/// - `file`: NULL when it is the key's own name (`ab/<digest>.<ext of the key>`); its suffix
///   after the digest when only that differs (a variant's `.webp`, a legacy name's ``""``);
///   the whole name otherwise.
/// - `content_type`: NULL when it is the MIME type of the entry's format; `''` when the server
///   sent none (or an empty one) for a body of a known format; the text otherwise.
/// - `last_modified`, `expires`, `date` (declared without a type): an integer, the seconds
///   since 1970, when the text is an IMF-fixdate written exactly as imgcache would write it
///   (``HTTPDate/canonicalSeconds(of:)``); the text otherwise (another form, a bad date).
/// - `sha256`: its 32 bytes when it is 64 hexadecimal digits, as written by imgcache or checked
///   at the boundary (lowercase); the text otherwise.
/// - `digest`: the 16 bytes of the key's MD5 (``KeyDigest``).
enum StoredForm {
  static func url(_ url: String, key: String) -> DatabaseValue {
    url == key ? .null : url.databaseValue
  }

  static func url(stored: String?, key: String) -> String { stored ?? key }

  static func file(_ file: String, key: String, digest: KeyDigest) -> DatabaseValue {
    let stem = ownStem(digest)
    guard file.hasPrefix(stem) else { return file.databaseValue }
    let suffix = file.dropFirst(stem.count)
    return suffix == ownSuffix(key) ? .null : String(suffix).databaseValue
  }

  static func file(stored: String?, key: String, digest: KeyDigest) -> String {
    guard let stored else { return ownStem(digest) + ownSuffix(key) }
    return stored.isEmpty || stored.hasPrefix(".") ? ownStem(digest) + stored : stored
  }

  /// `ab/<32 hex digits>`: a file's name without its extension.
  private static func ownStem(_ digest: KeyDigest) -> String {
    let hex = digest.hex
    return String(hex.prefix(2)) + "/" + hex
  }

  /// `.ext` of the key's path, or nothing (``CacheKey/fileExtension(of:)``).
  private static func ownSuffix(_ key: String) -> String {
    CacheKey.fileExtension(of: key).map { "." + $0 } ?? ""
  }

  static func contentType(_ type: String?, format: String?) -> DatabaseValue {
    guard let mime = format.flatMap(ImageFormat.init(rawValue:))?.mimeType else {
      return type.databaseValue
    }
    return type == mime ? .null : (type ?? "").databaseValue
  }

  static func contentType(stored: String?, format: String?) -> String? {
    guard let stored else { return format.flatMap(ImageFormat.init(rawValue:))?.mimeType }
    return stored.isEmpty ? nil : stored
  }

  static func httpDate(_ text: String?) -> DatabaseValue {
    guard let text else { return .null }
    return HTTPDate.canonicalSeconds(of: text).map { $0.databaseValue } ?? text.databaseValue
  }

  static func httpDate(stored row: some ColumnReader, at index: Int) throws -> String? {
    if let seconds = row.integer(index) {
      guard let text = HTTPDate.imfFixdate(seconds: seconds) else {
        throw DatabaseError(
          resultCode: .SQLITE_MISMATCH, message: "column \(index) is no date: \(seconds)")
      }
      return text
    }
    return try row.value(index)
  }

  static func sha256(_ hex: String?) -> DatabaseValue {
    guard let hex else { return .null }
    let lowercase = hex.utf8.allSatisfy { Hex.value(of: $0) != nil && !(65...70).contains($0) }
    guard hex.utf8.count == 64, lowercase, let bytes = Hex.decode(hex) else {
      return hex.databaseValue
    }
    return Data(bytes).databaseValue
  }

  static func sha256(stored row: some ColumnReader, at index: Int) throws -> String? {
    if let hex = row.withBlob(index, { Hex.encode($0) }) { return hex }
    return try row.value(index)
  }

  static func digest(_ digest: KeyDigest) -> DatabaseValue { digest.data.databaseValue }

  static func digest(stored row: some ColumnReader, at index: Int) throws -> KeyDigest {
    guard let digest = row.withBlob(index, { KeyDigest(bytes: $0) }) ?? nil else {
      throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "column \(index) is no digest")
    }
    return digest
  }
}
