import FoundationEssentials

/// The algorithms a table's hash column may name (`--verify-hash COL:ALGO`).
public enum HashAlgorithm: String, Sendable, CaseIterable {
  case sha256, md5

  /// The hex digits of one digest.
  package var hexLength: Int { self == .sha256 ? 64 : 32 }
}

/// The digest a table's row gives for its URL's body (`--verify-hash`): a body whose digest
/// differs is refused (docs/design.md, Tables).
public struct ExpectedDigest: Sendable, Equatable {
  /// How it was made.
  public var algorithm: HashAlgorithm
  /// The digest, lowercase hex.
  public var hex: String

  /// A digest made by `algorithm`, as lowercase hex.
  public init(_ algorithm: HashAlgorithm, hex: String) {
    (self.algorithm, self.hex) = (algorithm, hex)
  }
}

extension ExpectedDigest {
  /// Why a body whose digest is `actual` is refused; nil when it matches. `actual` is nil when
  /// the digest could not be made: the body unreadable, or, for a variant's original
  /// (`ofOriginal`), no longer stored.
  package func refusal(_ actual: String?, ofOriginal: Bool) -> CacheError? {
    if actual == hex { return nil }
    let name = algorithm.rawValue
    guard let actual else {
      return CacheError(
        .localIO,
        ofOriginal
          ? "cannot check its \(name): its original is not cached"
          : "cannot read its body to check its \(name)")
    }
    return CacheError(.digestMismatch, "its \(name) is \(actual), not the table's \(hex)")
  }
}

/// What a table's row says of its URL beyond the URL: the digest its body must have, and the
/// values its record keeps (the caption, the saved columns). The pipeline checks the digest
/// and hands the rest back with the URL's result; a class, so that a fetch carries one
/// reference, not the values.
public final class RowNotes: Sendable, Equatable {
  /// The body's expected digest, when the table gives one.
  public let digest: ExpectedDigest?
  /// The caption, when a caption column is named and the row has one.
  public let caption: String?
  /// The saved columns' values, in the order they were named (null when absent).
  public let saved: [TableValue]

  /// The notes of one row.
  public init(digest: ExpectedDigest? = nil, caption: String? = nil, saved: [TableValue] = []) {
    (self.digest, self.caption, self.saved) = (digest, caption, saved)
  }

  public static func == (lhs: RowNotes, rhs: RowNotes) -> Bool {
    lhs.digest == rhs.digest && lhs.caption == rhs.caption && lhs.saved == rhs.saved
  }
}

/// A URL of a list with what its row says of it, if it came from a table.
public struct ListedURL: Sendable, Equatable {
  /// The URL as given.
  public var url: String
  /// What its row says of it, when it came from a table's row.
  public var notes: RowNotes?

  /// `url`, with its row's `notes`.
  public init(_ url: String, notes: RowNotes? = nil) { (self.url, self.notes) = (url, notes) }

  /// The item a URL source gives for it.
  public var item: URLSourceItem { notes.map { .row(url, $0) } ?? .url(url) }
}
