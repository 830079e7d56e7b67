import Foundation
import GRDB

/// The queries of a `clean` dry run. A real `clean` and `clear` run in ``IndexTransaction``s
/// that storage orders: each batch in its own short write transaction, the files of the rows
/// being deleted removed inside it.
extension Index {
  private typealias Columns = CacheEntry.Columns

  /// The condition of entries expired at `time`: last used at or before `time − maxAge` (none
  /// when `maxAge` is negative), or past their own expiry.
  static func expired(maxAge: TimeInterval, at time: Date) -> SQLExpression {
    let moment = time.timeIntervalSince1970
    // COALESCE: a NULL expiry means "none", and must not make NOT (…) unknown.
    let ownExpiry = SQL("COALESCE(\(Columns.expiry) <= \(moment), 0)").sqlExpression
    guard maxAge >= 0 else { return ownExpiry }
    return Columns.lastAccess <= moment - maxAge || ownExpiry
  }

  /// Walks, in one read transaction and in a clean's order, the entries a clean at `time`
  /// would expire (`expiring`: least recently used first) or the others (in LRU order, the
  /// oldest stored first among equal uses), handing each to `body` until it returns false.
  /// One row at a time: memory stays flat whatever the number of entries.
  func walkCleanCandidates(
    maxAge: TimeInterval, at time: Date, expiring: Bool, _ body: (CacheEntry) throws -> Bool
  ) throws {
    let condition = Self.expired(maxAge: maxAge, at: time)
    try mergeUses()
    try read(orIfMissing: ()) { db in
      let request =
        expiring
        ? CacheEntry.filter(condition).order(Columns.lastAccess)
        : CacheEntry.filter(!condition).order(Columns.lastAccess, Columns.created)
      let cursor = try request.fetchCursor(db)
      while let entry = try cursor.next(), try body(entry) {}
    }
  }
}
