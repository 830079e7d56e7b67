import Foundation
import GRDB

/// A URL that failed permanently (SDWebImage's failed-URL blacklist, persisted with a TTL).
public struct FailedURL: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
  public static let databaseTableName = "failed_url"

  /// The URL exactly as requested.
  public var url: String
  /// The last failure's message.
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

  enum CodingKeys: String, CodingKey {
    case url, reason, kind
    case httpStatus = "http_status"
    case count
    case firstFailure = "first_failure"
    case lastFailure = "last_failure"
  }

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

extension DiskCache {
  /// The default time a failed URL stays blacklisted: one day.
  public static let defaultFailedTTL: TimeInterval = 86_400

  /// Records a permanent failure of `url`.
  public func recordFailure(url: String, error: CacheError) throws {
    let time = now()
    try write { db in
      var record =
        try FailedURL.fetchOne(db, key: url)
        ?? FailedURL(
          url: url, reason: error.message, kind: error.kind.rawValue, httpStatus: error.httpStatus,
          count: 0, firstFailure: time, lastFailure: time)
      record.reason = error.message
      record.kind = error.kind.rawValue
      record.httpStatus = error.httpStatus
      record.count += 1
      record.lastFailure = time
      try record.save(db)
    }
  }

  /// The failure record of `url` when it failed within `ttl` (so it is blacklisted now).
  public func failure(url: String, ttl: TimeInterval = DiskCache.defaultFailedTTL) throws
    -> FailedURL?
  {
    let cutoff = now().addingTimeInterval(-ttl)
    return try read(orIfMissing: nil) { db in
      guard let record = try FailedURL.fetchOne(db, key: url), record.lastFailure > cutoff else {
        return nil
      }
      return record
    }
  }

  /// The failure records of those of `urls` blacklisted now, in one read.
  public func failures(of urls: [String], ttl: TimeInterval = DiskCache.defaultFailedTTL) throws
    -> [String: FailedURL]
  {
    guard !urls.isEmpty else { return [:] }
    let cutoff = now().addingTimeInterval(-ttl)
    return try read(orIfMissing: [:]) { db in
      guard try Int.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM failed_url)") == 1 else {
        return [:]
      }
      var records = [String: FailedURL]()
      for record in try FailedURL.fetchAll(db, keys: urls) where record.lastFailure > cutoff {
        records[record.url] = record
      }
      return records
    }
  }

  /// Forgets `url`'s failures (after a success).
  public func forgetFailure(url: String) throws {
    guard try database(create: false) != nil else { return }
    let known = try read(orIfMissing: false) { db in try FailedURL.exists(db, key: url) }
    guard known else { return }
    try write { db in _ = try FailedURL.deleteOne(db, key: url) }
  }

  /// Every recorded failure, most recent first.
  public func failures() throws -> [FailedURL] {
    try read(orIfMissing: []) { db in
      try FailedURL.order(Column("last_failure").desc).fetchAll(db)
    }
  }
}
