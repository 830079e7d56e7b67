import FoundationEssentials

/// The queries of a `clean` dry run. A real `clean` and `clear` run in ``IndexTransaction``s
/// that storage orders: each batch in its own short write transaction, the files of the rows
/// being deleted removed inside it.
extension Index {
  private typealias Columns = CacheEntry.Columns

  /// The condition of entries expired at `time`: last used at or before `time − maxAge` (none
  /// when `maxAge` is negative), or past their own expiry.
  static func expired(maxAge: TimeInterval, at time: Date) -> SQLFilter {
    let moment = time.timeIntervalSince1970
    // COALESCE: a NULL expiry means "none", and must not make NOT (…) unknown.
    let ownExpiry = SQLFilter(sql: "COALESCE(expiry <= ?, 0)", arguments: [moment])
    guard maxAge >= 0 else { return ownExpiry }
    return SQLFilter(sql: "last_access <= ?", arguments: [moment - maxAge]) || ownExpiry
  }

  /// Where a page of a clean's candidates ended: the last row's place in a clean's order
  /// (last access, creation, rowid), as stored.
  package struct CleanPosition: Sendable {
    var lastAccess: Double
    var created: Double
    var rowid: Int64
  }

  /// The numbers of a clean's plan at `time`, from one read transaction (one snapshot): the
  /// entries it would expire; then, walking the others in a clean's order while
  /// `trimsWhile(survivors, remaining)` says so, those it would trim; and what would remain.
  /// Nothing but numbers leaves the transaction, so it has no side effect to repeat.
  package func cleanPlan(
    maxAge: TimeInterval, at time: Date,
    trimsWhile: (_ survivors: CacheTotals, _ remaining: CacheTotals) -> Bool
  ) throws -> (expired: CacheTotals, trimmed: CacheTotals, remaining: CacheTotals) {
    let condition = Self.expired(maxAge: maxAge, at: time)
    try mergeUses()
    return try read(orIfMissing: (.zero, .zero, .zero)) { db in
      let all = try IndexSchema.totals(db)
      let sums = try db.firstRow(
        "SELECT COUNT(rowid), COALESCE(SUM(size), 0), COALESCE(SUM(allocated), 0) "
          + "FROM entry WHERE \(condition.sql)", condition.arguments)
      let expired = try CacheTotals(
        entries: sums?.value(0) ?? 0, bytes: sums?.value(1) ?? 0, allocated: sums?.value(2) ?? 0)
      let survivors = CacheTotals(
        entries: all.entries - expired.entries, bytes: all.bytes - expired.bytes,
        allocated: all.allocated - expired.allocated)
      var (remaining, trimmed) = (survivors, CacheTotals.zero)
      if trimsWhile(survivors, remaining) {
        let order = Self.candidates(condition, expiring: false)
        let rows = try db.cursor(
          "SELECT size, allocated FROM entry WHERE \(order.filter.sql) ORDER BY \(order.order ?? "rowid")",
          order.filter.arguments)
        while trimsWhile(survivors, remaining), let row = try rows.next() {
          let (size, allocated): (Int64, Int64) = (try row.value(0), try row.value(1))
          (remaining.entries, remaining.bytes) = (remaining.entries - 1, remaining.bytes - size)
          remaining.allocated -= allocated
          (trimmed.entries, trimmed.bytes) = (trimmed.entries + 1, trimmed.bytes + size)
          trimmed.allocated += allocated
        }
      }
      return (expired, trimmed, remaining)
    }
  }

  /// A page of at most `limit` entries a clean at `time` would expire (`expiring`) or would
  /// consider for trimming, in a clean's order, after `after`; and the place of its last.
  package func cleanCandidates(
    maxAge: TimeInterval, at time: Date, expiring: Bool, after: CleanPosition?, limit: Int
  ) throws -> (entries: [CacheEntry], last: CleanPosition?) {
    let condition = Self.expired(maxAge: maxAge, at: time)
    return try read(orIfMissing: ([], nil)) { db in
      var query = Self.candidates(condition, expiring: expiring)
      query.extra = ["rowid"]
      query.limit = limit
      if let after {
        query.filter =
          query.filter
          && SQLFilter(
            sql: "(last_access, created, rowid) > (?, ?, ?)",
            arguments: [after.lastAccess, after.created, after.rowid])
      }
      let rows = try query.rows(db)
      let entries = try rows.map(CacheEntry.init(row:))
      let last = try entries.last.map { entry in
        CleanPosition(
          lastAccess: entry.lastAccess.timeIntervalSince1970,
          created: entry.created.timeIntervalSince1970,
          rowid: try rows[rows.count - 1].value(CacheEntry.Columns.all.count))
      }
      return (entries, last)
    }
  }

  /// The entries a clean expires (`expiring`) or the others, in a clean's order: least
  /// recently used first, then the oldest stored, then the first inserted.
  static func candidates(_ condition: SQLFilter, expiring: Bool) -> EntryQuery {
    EntryQuery(filter: expiring ? condition : !condition, order: "last_access, created, rowid")
  }
}
