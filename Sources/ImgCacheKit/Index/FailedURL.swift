import FoundationEssentials

/// A request that failed permanently (SDWebImage's failed-URL blacklist, persisted with a TTL).
///
/// A record belongs to one request: the URL and the fingerprint of the options that can change
/// the outcome (``RequestFingerprint``). The same URL asked with other credentials, headers or
/// CA file is a new attempt.
public struct FailedURL: Codable, Sendable, Equatable {

  /// The URL exactly as requested.
  public var url: String
  /// The fingerprint of the request's outcome-changing options.
  public var fingerprint: String
  /// The last failure's detail (without the URL).
  public var reason: String
  /// The last failure's class (``CacheError/Kind`` raw value).
  public var kind: String
  /// The last failure's HTTP status, when it had one.
  public var httpStatus: Int?
  /// How many times it failed.
  public var count: Int
  /// The first failure.
  public var firstFailure: Date
  /// The last failure; the TTL runs from here.
  public var lastFailure: Date

  /// The columns of the `failed_request` table, which are also its coding keys.
  public enum CodingKeys: String, CodingKey {
    case url, fingerprint, reason, kind
    case httpStatus = "http_status"
    case count
    case firstFailure = "first_failure"
    case lastFailure = "last_failure"
  }

  /// The columns of the `failed_request` table in its order, as every query selects them.
  static let selection =
    "url, fingerprint, reason, kind, http_status, count, first_failure, last_failure"

}

extension FailedURL {
  /// The record in a row of ``selection``.
  init(row: some ColumnReader) throws {
    url = try row.value(0)
    fingerprint = try row.value(1)
    reason = try row.value(2)
    kind = try row.value(3)
    httpStatus = row.integer(4).flatMap { Int(exactly: $0) }
    count = try row.value(5)
    firstFailure = Date(timeIntervalSince1970: try row.value(6))
    lastFailure = Date(timeIntervalSince1970: try row.value(7))
  }

  /// The record's values, in the order of ``selection``.
  var values: [any SQLiteConvertible] {
    [
      url, fingerprint, reason, kind, httpStatus, count, firstFailure.timeIntervalSince1970,
      lastFailure.timeIntervalSince1970,
    ]
  }
}

/// Queries on the failed-request list.
extension Index {
  /// The records `sql` selects (``FailedURL/selection`` first) with `arguments`.
  private static func records(
    _ db: SQLiteConnection, _ sql: String, _ arguments: [any SQLiteConvertible] = []
  ) throws -> [FailedURL] {
    try db.rows(sql, arguments).map(FailedURL.init(row:))
  }

  /// Records a permanent failure of the request (`url`, `fingerprint`) at `time`.
  package func recordFailure(url: String, fingerprint: String, error: CacheError, at time: Date)
    throws
  {
    try write { db in
      let found = try Self.records(
        db, "SELECT \(FailedURL.selection) FROM failed_request WHERE url = ? AND fingerprint = ?",
        [url, fingerprint])
      var record =
        found.first
        ?? FailedURL(
          url: url, fingerprint: fingerprint, reason: error.detail, kind: error.kind.rawValue,
          httpStatus: error.httpStatus, count: 0, firstFailure: time, lastFailure: time)
      record.reason = error.detail
      record.kind = error.kind.rawValue
      record.httpStatus = error.httpStatus
      record.count += 1
      record.lastFailure = time
      try db.cachedStatement(
        "INSERT OR REPLACE INTO failed_request (\(FailedURL.selection)) "
          + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
      ).execute(record.values)
    }
  }

  /// The records of those `urls` that failed after `cutoff`, every request of each, by URL.
  package func failures(urls: [String], after cutoff: Date) throws -> [String: [FailedURL]] {
    guard !urls.isEmpty else { return [:] }
    return try peek(orIfMissing: [:]) { db in
      guard try CompiledStatement.anyRow(in: "failed_request", db) else { return [:] }
      var records = [String: [FailedURL]]()
      for url in Set(urls) {
        let found = try Self.records(
          db,
          "SELECT \(FailedURL.selection) FROM failed_request WHERE url = ? AND last_failure > ?",
          [url, cutoff.timeIntervalSince1970])
        if !found.isEmpty { records[url] = found }
      }
      return records
    }
  }

  /// The most recent record of any request of `url` that failed after `cutoff`.
  package func latestFailure(url: String, after cutoff: Date) throws -> FailedURL? {
    try read(orIfMissing: nil) { db in
      try Self.records(
        db,
        "SELECT \(FailedURL.selection) FROM failed_request WHERE url = ? AND last_failure > ? "
          + "ORDER BY last_failure DESC LIMIT 1", [url, cutoff.timeIntervalSince1970]
      ).first
    }
  }

  /// Forgets every failure record of `url`, whatever the request.
  package func forgetFailures(url: String) throws {
    let known = try read(orIfMissing: false) { db in
      try db.firstValue("SELECT EXISTS (SELECT 1 FROM failed_request WHERE url = ?)", [url])
        == true
    }
    guard known else { return }
    try write { db in
      try db.execute(sql: "DELETE FROM failed_request WHERE url = ?", [url])
    }
  }

  /// Every failure record, most recent first.
  package func failures() throws -> [FailedURL] {
    try read(orIfMissing: []) { db in
      try Self.records(
        db, "SELECT \(FailedURL.selection) FROM failed_request ORDER BY last_failure DESC")
    }
  }

  /// How many failure records there are.
  package func failureCount() throws -> Int {
    try read(orIfMissing: 0) { db in try Self.countFailures(db) }
  }

  /// How many failure records there are, read in `db`.
  static func countFailures(_ db: SQLiteConnection) throws -> Int {
    let count = try db.cachedStatement("SELECT COUNT(*) FROM failed_request").firstInteger()
    return Int(clamping: count ?? 0)
  }

  /// Deletes every failure record; returns how many there were.
  package func clearFailures() throws -> Int {
    try writeIfExists(orIfMissing: 0) { db in try Self.deleteFailures(db) }
  }

  /// Deletes every failure record in `db`; returns how many there were.
  static func deleteFailures(_ db: SQLiteConnection) throws -> Int {
    let count = try countFailures(db)
    try db.execute(sql: "DELETE FROM failed_request")
    return count
  }
}
