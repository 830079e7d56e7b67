import FoundationEssentials

extension CacheEntry {
  /// The stored fields of an entry (see ``CacheEntry``), but its use (last access and count).
  struct Fields: Sendable, Equatable {
    var key: String
    var digest: KeyDigest
    var url: String
    /// The file as its row keeps it (``StoredForm/file(_:digest:)``): its whole name is made
    /// when asked for, not for every row read.
    var file: String
    var size: Int64
    var allocated: Int64
    var format: String?
    var width: Int?
    var height: Int?
    var scale: Int
    var contentType: String?
    var etag: String?
    var lastModified: String?
    var created: Date
    var expiry: Date?
    var sha256: StoredSHA256?
    var freshness: ResponseFreshness
    var shareable: Bool
  }

  /// The box an entry's copies share. Its fields change only through an entry that holds the
  /// box alone (``CacheEntry`` copies it first otherwise), so no two threads ever see it
  /// change: hence `@unchecked Sendable`.
  // @unchecked: copy-on-write; only an entry holding the box alone changes it.
  final class Box: @unchecked Sendable {
    var fields: Fields

    init(_ fields: Fields) { self.fields = fields }
  }
}
