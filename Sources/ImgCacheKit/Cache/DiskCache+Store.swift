import Foundation
import GRDB

/// A complete, validated body waiting to enter the cache.
public struct PendingStore: Sendable {
  /// The temporary file holding the body (in the cache's `tmp/`).
  public var temporaryPath: String
  /// The cache key.
  public var key: String
  /// The URL it came from.
  public var url: String
  /// Its metadata.
  public var metadata: EntryMetadata

  /// Describes a body to store.
  public init(temporaryPath: String, key: String, url: String, metadata: EntryMetadata) {
    self.temporaryPath = temporaryPath
    self.key = key
    self.url = url
    self.metadata = metadata
  }
}

extension DiskCache {
  /// Moves the complete file at `temporaryPath` into the cache under `key`, with its metadata,
  /// replacing any previous entry and file of that key. The file is renamed, then the row
  /// committed, in one write transaction.
  @discardableResult
  public func store(
    _ temporaryPath: String, key: String, url: String, metadata: EntryMetadata
  ) throws -> CacheEntry {
    let item = PendingStore(temporaryPath: temporaryPath, key: key, url: url, metadata: metadata)
    guard let result = try store([item]).first else {
      throw CacheError(.localIO, "cannot store \(url)")
    }
    return try result.get()
  }

  /// Stores many bodies in one write transaction (a prefetch's batched index writes). Each
  /// item succeeds or fails on its own; a failed item's temporary file is removed. Throws when
  /// the transaction itself fails.
  public func store(_ items: [PendingStore]) throws -> [Result<CacheEntry, CacheError>] {
    guard !items.isEmpty else { return [] }
    let time = now()
    var prepared = [Result<CacheEntry, CacheError>]()
    for item in items {
      guard let sizes = FileIO.sizes(of: item.temporaryPath) else {
        prepared.append(
          .failure(CacheError(.localIO, "cannot store \(item.url): temporary file is gone")))
        continue
      }
      let file = CacheLayout.relativeFile(for: item.key)
      do { try prepareShard(of: file) } catch {
        prepared.append(.failure(CacheError.io("cannot store \(item.url)", error)))
        continue
      }
      let m = item.metadata
      prepared.append(
        .success(
          CacheEntry(
            key: item.key, url: item.url, file: file, size: sizes.size, allocated: sizes.allocated,
            format: m.format?.rawValue, width: m.width, height: m.height,
            scale: CacheKey.scale(of: item.key), contentType: m.contentType, etag: m.etag,
            lastModified: m.lastModified, created: time, lastAccess: time, expiry: m.expiry,
            accessCount: 0)))
    }
    let results = try write { db -> [Result<CacheEntry, CacheError>] in
      var delta = CacheTotals.zero
      var stored: Int64 = 0
      var bytes: Int64 = 0
      let previous = try db.cachedStatement(
        sql: "SELECT size, allocated, access_count FROM entry WHERE key = ?")
      let upsert = try db.cachedStatement(
        sql: """
          INSERT INTO entry (key, url, file, size, allocated, format, width, height, scale,
            content_type, etag, last_modified, created, last_access, expiry, access_count)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(key) DO UPDATE SET url = excluded.url, file = excluded.file,
            size = excluded.size, allocated = excluded.allocated, format = excluded.format,
            width = excluded.width, height = excluded.height, scale = excluded.scale,
            content_type = excluded.content_type, etag = excluded.etag,
            last_modified = excluded.last_modified, created = excluded.created,
            last_access = excluded.last_access, expiry = excluded.expiry
          """)
      let forget = try db.cachedStatement(sql: "DELETE FROM failed_url WHERE url = ?")
      var results = [Result<CacheEntry, CacheError>]()
      for (item, outcome) in zip(items, prepared) {
        guard case .success(var entry) = outcome else {
          results.append(outcome)
          continue
        }
        let old = try Row.fetchOne(previous, arguments: [entry.key])
        do {
          try moveIntoPlace(item.temporaryPath, file: entry.file)
        } catch {
          results.append(.failure(CacheError.io("cannot store \(item.url)", error)))
          continue
        }
        if let old { entry.accessCount = old["access_count"] }
        try upsert.execute(arguments: [
          entry.key, entry.url, entry.file, entry.size, entry.allocated, entry.format, entry.width,
          entry.height, entry.scale, entry.contentType, entry.etag, entry.lastModified,
          time.timeIntervalSince1970, time.timeIntervalSince1970,
          entry.expiry?.timeIntervalSince1970, entry.accessCount,
        ])
        try forget.execute(arguments: [item.url])
        delta.entries += old == nil ? 1 : 0
        delta.bytes += entry.size - (old?["size"] ?? 0)
        delta.allocated += entry.allocated - (old?["allocated"] ?? 0)
        stored += 1
        bytes += entry.size
        results.append(.success(entry))
      }
      try IndexSchema.adjustTotals(db, by: delta)
      try IndexSchema.increment(["stores": stored, "bytes_stored": bytes], db)
      return results
    }
    for (item, result) in zip(items, results) {
      if case .failure = result { unlink(item.temporaryPath) }
    }
    return results
  }

  /// Renames a temporary file into `data/`; re-creates the shard once if a clear in another
  /// process removed it.
  private func moveIntoPlace(_ temporaryPath: String, file: String) throws {
    let destination = layout.dataPath(file)
    do {
      try FileIO.rename(temporaryPath, to: destination)
    } catch {
      forgetPreparedShards()
      try prepareShard(of: file)
      try FileIO.rename(temporaryPath, to: destination)
    }
  }
}
