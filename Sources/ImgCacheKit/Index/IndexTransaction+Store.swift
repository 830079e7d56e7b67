/// A batch of stores in one transaction (``IndexTransaction/storeBatch(counting:)``): its
/// statements prepared once per transaction, and the totals and counts its stores add, written
/// by ``finish()``. Storage places each body in `data/` and then calls ``store(_:link:)``, so
/// the row and the file appear together to every process; a body that cannot be placed is
/// never stored here, and fails alone.
///
/// Like its transaction, valid only inside the closure the transaction was handed to.
package struct StoreBatch {
  private typealias Columns = CacheEntry.Columns

  private let db: SQLiteConnection
  private let counters: (stored: Counter, bytes: Counter)
  private let previous: CompiledStatement
  private let insert: CompiledStatement
  private let update: CompiledStatement
  /// Deletes a stored URL's failure records; nil when there is none in the table.
  private let forget: CompiledStatement?
  /// Deletes a stored key's partial-download record; nil when there is none in the table.
  private let complete: CompiledStatement?
  private var delta = CacheTotals.zero
  private var stored: Int64 = 0
  private var bytes: Int64 = 0

  /// Prepares the statements of a batch in `db`'s transaction (one query each for the failure
  /// and partial-download tables: whether they hold any row).
  fileprivate init(_ db: SQLiteConnection, counting counters: (stored: Counter, bytes: Counter))
    throws
  {
    self.db = db
    self.counters = counters
    previous = try db.cachedStatement(Self.previousSQL)
    insert = try db.cachedStatement(Self.insertSQL)
    update = try db.cachedStatement(Self.updateSQL)
    // Most stores have no failure record or partial body to forget: two statements per body
    // saved by asking once whether there is any.
    forget = try Self.statement(
      ifAnyIn: "failed_request", "DELETE FROM failed_request WHERE url = ?", db)
    complete = try Self.statement(
      ifAnyIn: "partial_download", "DELETE FROM partial_download WHERE key = ?", db)
  }

  /// Inserts or replaces the row of `entry`, whose body storage has placed in `data/` in this
  /// transaction, with the variant's `link` when it is one. A replaced entry keeps its use
  /// count (its recorded uses folded into the new row); the URL's failure records and the
  /// key's partial-download record are forgotten. Returns the entry as stored.
  package mutating func store(_ entry: CacheEntry, link: VariantLink?) throws -> CacheEntry {
    var entry = entry
    previous.reset()
    try previous.bind(entry.digest, at: 1)
    try previous.bind(entry.key, at: 2)
    var old: (size: Int64, allocated: Int64, uses: Int64, rowid: Int64)?
    try previous.run { row in
      old = (try row.value(0), try row.value(1), try row.value(2), try row.value(3))
    }
    if let old {
      entry.accessCount = Int(clamping: old.uses)
      try EntryUses.forget(rowid: old.rowid, db)
      try update.bind(values: entry.values + [old.rowid.sqliteValue])
      try update.run()
    } else {
      try insert.bind(values: entry.values)
      try insert.run()
    }
    if let link { try VariantLinks.record(link, db) }
    try forget?.execute([entry.url])
    try complete?.execute([entry.key])
    delta.entries += old == nil ? 1 : 0
    delta.bytes += entry.size - (old?.size ?? 0)
    delta.allocated += entry.allocated - (old?.allocated ?? 0)
    stored += 1
    bytes += entry.size
    return entry
  }

  /// Adds the totals and counts of the batch's stores: called once, after the last store.
  package func finish() throws {
    try IndexSchema.adjustTotals(db, by: delta)
    try IndexSchema.increment([counters.stored: stored, counters.bytes: bytes], db)
  }

  /// The size, allocated size, use count (recorded uses included) and rowid of a stored key.
  private static let previousSQL =
    "SELECT entry.size, entry.allocated, entry.access_count + "
    + "COALESCE(entry_use.access_count, 0), entry.rowid FROM \(EntryUses.joined) "
    + "WHERE \(IndexSchema.byKey)"

  /// Inserts an entry (built once, not per store).
  private static let insertSQL = {
    let names = Columns.all.map(\.name)
    return """
      INSERT INTO entry (\(names.joined(separator: ", ")))
      VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
      """
  }()

  /// Rewrites every column of the row whose rowid is the last parameter (built once).
  private static let updateSQL = IndexSchema.updateEveryColumn(where: "rowid = ?")

  /// The statement `sql` when `table` has any row (in the caller's transaction), else nil.
  private static func statement(ifAnyIn table: String, _ sql: String, _ db: SQLiteConnection) throws
    -> CompiledStatement?
  {
    try CompiledStatement.anyRow(in: table, db) ? try db.cachedStatement(sql) : nil
  }
}

extension IndexTransaction {
  /// A batch of stores in this transaction, counted under `counters` (downloads, or a remote
  /// copy's remote hits) when it is finished.
  package func storeBatch(counting counters: (stored: Counter, bytes: Counter)) throws -> StoreBatch
  {
    try StoreBatch(db, counting: counters)
  }
}
