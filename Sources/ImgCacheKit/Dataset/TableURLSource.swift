import FoundationEssentials
import Synchronization

/// The rows of a table that could not be used, counted as they are read: shared between the
/// reading task and whoever reports them (only the first few are kept with their lines).
public final class TableDamage: Sendable {
  /// How many malformed rows are kept with their line and reason.
  public static let kept = 10

  private let state = Mutex<(count: Int, first: [(line: Int, reason: String)])>((0, []))

  public init() {}

  /// Counts a malformed row.
  public func note(line: Int, reason: String) {
    state.withLock { state in
      state.count += 1
      if state.first.count < Self.kept { state.first.append((line, reason)) }
    }
  }

  /// How many rows were malformed.
  public var count: Int { state.withLock { $0.count } }

  /// The first malformed rows, with their lines and reasons.
  public var first: [(line: Int, reason: String)] { state.withLock { $0.first } }
}

/// A table's URLs as a prefetch reads them: each row's URL in order, with what the row says of
/// it when its columns ask for more than the URL (the digest to check, the caption and saved
/// columns for its record); a malformed row counted in ``damage`` and skipped.
public final class TableURLSource: URLSource {
  /// The malformed rows met.
  public let damage: TableDamage
  private let reader: TableReader
  private var ended = false

  /// The URLs of `reader`'s rows; malformed rows go to `damage`.
  public init(_ reader: TableReader, damage: TableDamage = TableDamage()) {
    (self.reader, self.damage) = (reader, damage)
  }

  public func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    while !ended {
      switch try reader.next() {
      case .row(let row): return item(row)
      case .malformed(let line, let reason): damage.note(line: line, reason: reason)
      case .end: ended = true
      }
    }
    return .end
  }

  /// The item of `row`: its URL alone, unless the columns ask for more.
  private func item(_ row: TableRow) -> URLSourceItem {
    let columns = reader.columns
    guard columns.hash != nil || columns.caption != nil || !columns.saved.isEmpty else {
      return .url(row.url)
    }
    let digest = columns.hash.flatMap { hash in
      row.expectedHash.map { ExpectedDigest(hash.algorithm, hex: $0) }
    }
    return .row(row.url, RowNotes(digest: digest, caption: row.caption, saved: row.saved))
  }
}
