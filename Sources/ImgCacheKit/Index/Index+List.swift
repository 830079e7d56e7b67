import FoundationEssentials

/// Which entries `list` shows. Every condition is optional; all given must hold.
public struct EntryFilter: Sendable, Equatable {
  /// A shell glob (`*`, `?`, `[…]`) the URL must match, case-sensitive.
  public var urlGlob: String?
  /// Image format names (``ImageFormat`` raw values); empty: any.
  public var formats: [String] = []
  /// Size strictly above, in bytes.
  public var largerThan: Int64?
  /// Size strictly below, in bytes.
  public var smallerThan: Int64?
  /// Last used at or before.
  public var lastAccessAtOrBefore: Date?
  /// Last used after.
  public var lastAccessAfter: Date?
  /// Stored before.
  public var createdBefore: Date?
  /// Stored after.
  public var createdAfter: Date?
  /// Only variants (true), only originals (false), or both (nil).
  public var variants: Bool?

  /// No condition: every entry.
  public init() {}
}

/// The order of `list`.
public enum EntryOrder: String, Sendable, CaseIterable {
  /// Last use, least recently used first (what `clean` removes first).
  case access
  /// Logical size, smallest first.
  case size
  /// Time stored, oldest first.
  case created
  /// URL, in byte order.
  case url
  /// Use count, least used first.
  case hits
  /// Storage order (the table's rowid): the cheapest walk over every entry.
  case stored

  /// Rows a listing should ask for per page: orders served by an index take small pages;
  /// the others (`url`, `hits`) sort the table once per page, so they take large ones.
  public var pageSize: Int {
    switch self {
    case .access, .size, .created, .stored: 1_000
    case .url, .hits: 10_000
    }
  }
}

/// Where a listing stopped: the last row's sort value and rowid (opaque to callers).
public struct EntryCursor: Sendable {
  fileprivate let value: SQLiteValue
  fileprivate let rowid: Int64
}

/// One page of a listing and where the next one starts (nil after the last).
public struct EntryPage: Sendable {
  /// The entries, in order.
  public var entries: [CacheEntry]
  /// Where the next page starts, or nil when this was the last.
  public var next: EntryCursor?
  /// The original's key of each variant among ``entries``, by the variant's key.
  public var variantOf: [String: String] = [:]
}

extension Index {
  private typealias Columns = CacheEntry.Columns

  /// Up to `limit` entries matching `filter` in `order` (or its reverse), after `cursor`: pages
  /// of a listing that never holds more than one page, each read in its own short transaction
  /// (keyset pagination on the order's column and the rowid, which every index of the table
  /// ends with, so `access`, `size`, `created` and `stored` pages are index range scans).
  package func entries(
    matching filter: EntryFilter, order: EntryOrder, reverse: Bool, after cursor: EntryCursor?,
    limit: Int
  ) throws -> EntryPage {
    // The uses recorded by every process first, so `access` and `hits` are in their latest
    // order; a cache this user cannot write, or that another process writes for longer than
    // a moment (a long clean), is listed as it is: without the uses not merged yet.
    if cursor == nil { try? mergeUses(briefly: true) }
    let column = Self.column(of: order)
    // The entry's columns, its rowid, then the value it is ordered by (the cursor's).
    var query = EntryQuery(filter: Self.condition(filter), limit: limit, extra: ["rowid", column])
    if let cursor {
      let comparison = reverse ? "<" : ">"
      query.filter =
        query.filter
        && (order == .stored
          ? SQLFilter(sql: "rowid \(comparison) ?", arguments: [cursor.rowid])
          : SQLFilter(
            sql: "(\(column), rowid) \(comparison) (?, ?)",
            arguments: [cursor.value, cursor.rowid]))
    }
    let terms = order == .stored ? ["rowid"] : [column, "rowid"]
    query.order = terms.map { $0 + (reverse ? " DESC" : " ASC") }.joined(separator: ", ")
    // Read by position from the statement (named lookups in copied rows cost more than SQLite).
    let rowidAt = Columns.all.count
    let valueAt = rowidAt + 1
    return try read(orIfMissing: EntryPage(entries: [], next: nil)) { db in
      var entries = [CacheEntry]()
      var next: EntryCursor?
      let rows = try query.cursor(db)
      while let row = try rows.next() {
        entries.append(try CacheEntry(columns: row))
        if entries.count == limit {
          next = EntryCursor(value: row.value(at: Int32(valueAt)), rowid: try row.value(rowidAt))
        }
      }
      var links = [String: String]()
      if filter.variants != false {
        for (key, link) in try VariantLinks.links(forKeys: entries.map(\.key), db) {
          links[key] = link.original
        }
      }
      return EntryPage(entries: entries, next: next, variantOf: links)
    }
  }

  /// An entry's URL in SQL: its `url`, NULL when it is the key (``StoredForm``).
  private static let url = "COALESCE(url, key)"

  private static func column(of order: EntryOrder) -> String {
    switch order {
    case .access: Columns.lastAccess.name
    case .size: Columns.size.name
    case .created: Columns.created.name
    case .url: Self.url
    case .hits: Columns.accessCount.name
    case .stored: "rowid"
    }
  }

  private static func condition(_ filter: EntryFilter) -> SQLFilter {
    var parts = [SQLFilter]()
    if let glob = filter.urlGlob {
      parts.append(SQLFilter(sql: "\(Self.url) GLOB ?", arguments: [glob]))
    }
    if !filter.formats.isEmpty {
      let formats = Array(filter.formats)
      let marks = Array(repeating: "?", count: formats.count).joined(separator: ", ")
      parts.append(SQLFilter(sql: "format IN (\(marks))", arguments: formats))
    }
    if let size = filter.largerThan { parts.append(SQLFilter(sql: "size > ?", arguments: [size])) }
    if let size = filter.smallerThan { parts.append(SQLFilter(sql: "size < ?", arguments: [size])) }
    let times: [(Date?, String)] = [
      (filter.lastAccessAtOrBefore, "last_access <= ?"),
      (filter.lastAccessAfter, "last_access > ?"),
      (filter.createdBefore, "created < ?"), (filter.createdAfter, "created > ?"),
    ]
    for case (let time?, let sql) in times {
      parts.append(SQLFilter(sql: sql, arguments: [time.timeIntervalSince1970]))
    }
    if let variants = filter.variants {
      parts.append(SQLFilter(sql: "key \(variants ? "IN" : "NOT IN") (SELECT key FROM variant)"))
    }
    return parts.reduce(SQLFilter.all, &&)
  }
}

/// How `size --by` groups the entries.
public enum SizeBreakdown: String, Sendable, CaseIterable {
  /// By image format (`none` for bodies stored with "any body").
  case format
  /// By the URL's host (and port).
  case host
  /// Originals, then each variant spec (docs/design.md, Variants).
  case variant
}

/// One group of `size --by`.
public struct SizeGroup: Sendable, Equatable {
  /// The format or host.
  public var name: String
  /// Entries, bytes and allocated bytes in the group.
  public var totals: CacheTotals
}

extension Index {
  /// The entries grouped by `breakdown`, largest first (by allocated size), in one read.
  package func breakdown(by breakdown: SizeBreakdown) throws -> [SizeGroup] {
    try read(orIfMissing: []) { db in
      var groups = [String: CacheTotals]()
      switch breakdown {
      case .format:
        try Self.groups(
          """
          SELECT COALESCE(format, 'none'), COUNT(*), SUM(size), SUM(allocated)
          FROM entry GROUP BY format
          """, into: &groups, db)
      case .variant:
        // Originals together; each variant spec (a size, a format) in a group of its own.
        try Self.groups(
          """
          SELECT COALESCE(variant.spec, 'original'), COUNT(*), SUM(size), SUM(allocated)
          FROM entry LEFT JOIN variant ON variant.key = entry.key
          GROUP BY variant.spec
          """, into: &groups, db)
      case .host:
        let rows = try db.cursor("SELECT COALESCE(url, key), size, allocated FROM entry")
        while let row = try rows.next() {
          let host = URLText.host(of: try row.value(0))
          var totals = groups[host] ?? .zero
          totals.entries += 1
          totals.bytes += try row.value(1) as Int64
          totals.allocated += try row.value(2) as Int64
          groups[host] = totals
        }
      }
      return groups.map { SizeGroup(name: $0.key, totals: $0.value) }.sorted {
        ($0.totals.allocated, $1.name) > ($1.totals.allocated, $0.name)
      }
    }
  }

  /// Reads the groups `sql` gives (name, count, bytes, allocated bytes) into `groups`.
  private static func groups(
    _ sql: String, into groups: inout [String: CacheTotals], _ db: SQLiteConnection
  ) throws {
    let rows = try db.cursor(sql)
    while let row = try rows.next() {
      groups[try row.value(0)] = CacheTotals(
        entries: try row.value(1), bytes: try row.value(2), allocated: try row.value(3))
    }
  }
}
