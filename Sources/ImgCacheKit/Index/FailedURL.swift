import FoundationEssentials
import GRDB

/// A request that failed permanently (SDWebImage's failed-URL blacklist, persisted with a TTL).
///
/// A record belongs to one request: the URL and the fingerprint of the options that can change
/// the outcome (``RequestFingerprint``). The same URL asked with other credentials, headers or
/// CA file is a new attempt.
public struct FailedURL: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
  public static let databaseTableName = "failed_request"

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
  public enum CodingKeys: String, CodingKey, ColumnExpression {
    case url, fingerprint, reason, kind
    case httpStatus = "http_status"
    case count
    case firstFailure = "first_failure"
    case lastFailure = "last_failure"
  }

  /// The columns of the `failed_request` table.
  public typealias Columns = CodingKeys

  public static func databaseDateEncodingStrategy(for column: String)
    -> DatabaseDateEncodingStrategy
  {
    .timeIntervalSince1970
  }
  public static func databaseDateDecodingStrategy(for column: String)
    -> DatabaseDateDecodingStrategy
  {
    .timeIntervalSince1970
  }
}

/// Queries on the failed-request list.
extension Index {
  private typealias Columns = FailedURL.Columns

  /// Records a permanent failure of the request (`url`, `fingerprint`) at `time`.
  package func recordFailure(url: String, fingerprint: String, error: CacheError, at time: Date)
    throws
  {
    try write { db in
      let key: [String: (any DatabaseValueConvertible)?] = [
        "url": url, "fingerprint": fingerprint,
      ]
      var record =
        try FailedURL.fetchOne(db, key: key)
        ?? FailedURL(
          url: url, fingerprint: fingerprint, reason: error.detail, kind: error.kind.rawValue,
          httpStatus: error.httpStatus, count: 0, firstFailure: time, lastFailure: time)
      record.reason = error.detail
      record.kind = error.kind.rawValue
      record.httpStatus = error.httpStatus
      record.count += 1
      record.lastFailure = time
      try record.save(db)
    }
  }

  /// The records of those `urls` that failed after `cutoff`, every request of each, by URL.
  package func failures(urls: [String], after cutoff: Date) throws -> [String: [FailedURL]] {
    guard !urls.isEmpty else { return [:] }
    return try peek(orIfMissing: [:]) { db in
      guard try DirectStatement.anyRow(in: "failed_request", db) else { return [:] }
      let statement = try db.cachedStatement(
        sql: "SELECT * FROM failed_request WHERE url = ? AND last_failure > ?")
      var records = [String: [FailedURL]]()
      for url in Set(urls) {
        let found = try FailedURL.fetchAll(
          statement, arguments: [url, cutoff.timeIntervalSince1970])
        if !found.isEmpty { records[url] = found }
      }
      return records
    }
  }

  /// The most recent record of any request of `url` that failed after `cutoff`.
  package func latestFailure(url: String, after cutoff: Date) throws -> FailedURL? {
    try read(orIfMissing: nil) { db in
      try FailedURL
        .filter(Columns.url == url && Columns.lastFailure > cutoff.timeIntervalSince1970)
        .order(Columns.lastFailure.desc).fetchOne(db)
    }
  }

  /// Forgets every failure record of `url`, whatever the request.
  package func forgetFailures(url: String) throws {
    let known = try read(orIfMissing: false) { db in
      try FailedURL.filter(Columns.url == url).fetchCount(db) > 0
    }
    guard known else { return }
    try write { db in _ = try FailedURL.filter(Columns.url == url).deleteAll(db) }
  }

  /// Every failure record, most recent first.
  package func failures() throws -> [FailedURL] {
    try read(orIfMissing: []) { db in
      try FailedURL.order(Columns.lastFailure.desc).fetchAll(db)
    }
  }

  /// How many failure records there are.
  package func failureCount() throws -> Int {
    try read(orIfMissing: 0) { db in try FailedURL.fetchCount(db) }
  }

  /// Deletes every failure record; returns how many there were.
  package func clearFailures() throws -> Int {
    try writeIfExists(orIfMissing: 0) { db in try FailedURL.deleteAll(db) }
  }
}
