import FoundationEssentials

/// A body interrupted part way (Ctrl-C, SIGTERM, a timeout, a reset, SIGKILL), kept in
/// `tmp/resume-<md5 of key>` so that the next fetch asks only for the rest: `Range: bytes=N-`
/// with `If-Range: <validator>` (RFC 9110 §13.1.5). Recorded when a body worth keeping starts,
/// so even a process killed outright leaves a usable record.
public struct PartialDownload: Sendable, Equatable {
  /// The URL requested (without credentials).
  public var url: String
  public var key: String
  /// The partial body, relative to the cache directory (`tmp/resume-…`).
  public var file: String
  /// The strong validator the body was sent with: an ETag (never a weak `W/` one) or a
  /// Last-Modified date.
  public var validator: String
  /// The whole body's length, when the server said.
  public var contentLength: Int64?
  /// When the body started.
  public var updated: Date

  /// The record of a partial body of `url`.
  package init(
    url: String, key: String, file: String, validator: String, contentLength: Int64?,
    updated: Date
  ) {
    (self.url, self.key, self.file, self.validator) = (url, key, file, validator)
    (self.contentLength, self.updated) = (contentLength, updated)
  }
}

/// When partial bodies are kept and for how long (defaults written once, here).
public struct ResumePolicy: Sendable, Equatable {
  /// Bodies shorter than this (or whose server gave no length under it) are not kept.
  public var minimumSize: Int64 = 1 << 20
  /// Partial bodies older than this are not resumed; `clean` removes them.
  public var maxAge: TimeInterval = 86_400

  /// The defaults.
  public init() {}
}

extension Index {
  /// Records `partial` (replacing an earlier record of its URL).
  package func savePartial(_ partial: PartialDownload) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO partial_download
            (url, key, file, bytes, etag, last_modified, content_length, updated)
          VALUES (?, ?, ?, 0, ?, NULL, ?, ?)
          """,
        [
          partial.url, partial.key, partial.file, partial.validator, partial.contentLength,
          partial.updated.timeIntervalSince1970,
        ])
    }
  }

  /// The record of the partial body of `key`, if any.
  package func partial(forKey key: String) throws -> PartialDownload? {
    try read(orIfMissing: nil) { db in
      guard
        let row = try db.firstRow(
          "SELECT url, key, file, etag, content_length, updated FROM partial_download "
            + "WHERE key = ? ORDER BY updated DESC LIMIT 1", [key]),
        let validator: String = try row.value(3)
      else { return nil }
      return PartialDownload(
        url: try row.value(0), key: try row.value(1), file: try row.value(2), validator: validator,
        contentLength: try row.value(4), updated: Date(timeIntervalSince1970: try row.value(5)))
    }
  }

  /// Forgets the partial bodies of `keys` (stored, restarted or removed).
  package func deletePartials(keys: [String]) throws {
    guard !keys.isEmpty else { return }
    try writeIfExists(orIfMissing: ()) { db in
      let statement = try db.cachedStatement("DELETE FROM partial_download WHERE key = ?")
      for key in keys { try statement.execute([key]) }
    }
  }

  /// Forgets the records of the partial bodies `files` (`tmp/resume-…`), given up for room.
  package func deletePartials(files: [String]) throws {
    guard !files.isEmpty else { return }
    try writeIfExists(orIfMissing: ()) { db in
      let statement = try db.cachedStatement("DELETE FROM partial_download WHERE file = ?")
      for file in files { try statement.execute([file]) }
    }
  }
}
