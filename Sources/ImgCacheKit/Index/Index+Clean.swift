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

  /// The entries a clean at `time` would expire, and the others in LRU order.
  func cleanPlan(maxAge: TimeInterval, at time: Date) throws
    -> (expired: [CacheEntry], survivors: [CacheEntry])
  {
    let condition = Self.expired(maxAge: maxAge, at: time)
    try mergeUses()
    return try read(orIfMissing: ([], [])) { db in
      (
        try CacheEntry.filter(condition).order(Columns.lastAccess).fetchAll(db),
        try CacheEntry.filter(!condition).order(Columns.lastAccess, Columns.created)
          .fetchAll(db)
      )
    }
  }
}
