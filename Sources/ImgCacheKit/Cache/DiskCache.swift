import Foundation
import GRDB

/// Where a lookup found a body.
public enum CacheHit: Sendable, Equatable {
  /// In this cache, with its index row.
  case local(CacheEntry, path: String)
  /// In a read-only extra directory (SDWebImage's flat `<md5>[.ext]` layout).
  case readOnly(path: String)

  /// The absolute path of the body.
  public var path: String {
    switch self {
    case .local(_, let path), .readOnly(let path): return path
    }
  }
}

/// The SQLite-indexed disk cache (DESIGN.md §2–§3): one directory, safe for several processes.
///
/// Every change to `data/` happens inside a write transaction of the index, so a row and its
/// file change together as seen by every other process.
public final class DiskCache: @unchecked Sendable {
  /// The paths of the cache.
  public let layout: CacheLayout
  /// Extra directories searched after this cache, never written or cleaned.
  public let readOnlyDirectories: [URL]
  /// The clock; tests move it.
  let now: @Sendable () -> Date
  private let lock = NSLock()
  private var pool: DatabasePool?
  private var reader: DatabaseQueue?
  private var preparedShards = Set<String>()

  /// Opens the cache at `directory`; nothing is created until the first write.
  public init(
    directory: URL, readOnlyDirectories: [URL] = [],
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.layout = CacheLayout(root: directory)
    self.readOnlyDirectories = readOnlyDirectories
    self.now = now
  }

  // MARK: Database access

  /// The index, created with the directories when `create` is set; nil when the cache does not
  /// exist yet and `create` is not set.
  func database(create: Bool) throws -> DatabasePool? {
    lock.lock()
    defer { lock.unlock() }
    if let pool { return pool }
    let path = layout.indexFile.path
    if !create && access(path, F_OK) != 0 { return nil }
    do {
      if create { try layout.prepare() }
      var config = Configuration()
      config.busyMode = .timeout(60)
      // WAL with NORMAL sync: commits are atomic and the index never corrupts; only the last
      // transactions before a power loss may be lost, which a cache tolerates.
      config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
      config.label = "imgcache.index"
      let opened = try DatabasePool(path: path, configuration: config)
      try IndexSchema.migrate(opened, lockPath: path + ".migrate-lock")
      pool = opened
      return opened
    } catch {
      throw CacheError.io("cannot open the index \(path)", error)
    }
  }

  /// The index, created on first use.
  func writableDatabase() throws -> DatabasePool {
    guard let pool = try database(create: true) else {
      throw CacheError(.localIO, "cannot open the index \(layout.indexFile.path)")
    }
    return pool
  }

  /// Runs `body` in a read transaction; returns `empty` when the cache does not exist.
  ///
  /// A process that has not written yet reads through one read-only connection, which opens
  /// faster than the pool (no WAL set-up, no second connection); should that fail (an index
  /// older than this program, say), the pool opens and migrates it.
  func read<T>(orIfMissing empty: T, _ body: (Database) throws -> T) throws -> T {
    do {
      lock.lock()
      let current = pool
      lock.unlock()
      if let current { return try current.read(body) }
      if access(layout.indexFile.path, F_OK) != 0 { return empty }
      if let queue = readOnlyQueue(), let value = try? queue.read(body) { return value }
      guard let pool = try database(create: false) else { return empty }
      return try pool.read(body)
    } catch {
      throw CacheError.io("cannot read the index \(layout.indexFile.path)", error)
    }
  }

  /// The read-only connection of a process that has not written, opened once.
  private func readOnlyQueue() -> DatabaseQueue? {
    lock.lock()
    defer { lock.unlock() }
    if let reader { return reader }
    var config = Configuration()
    config.readonly = true
    config.busyMode = .timeout(60)
    config.label = "imgcache.index.read"
    reader = try? DatabaseQueue(path: layout.indexFile.path, configuration: config)
    return reader
  }

  /// Runs `body` in an IMMEDIATE write transaction.
  func write<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try writableDatabase().write(body)
    } catch {
      throw CacheError.io("cannot update the index \(layout.indexFile.path)", error)
    }
  }

  // MARK: Store

  /// Creates an empty temporary file in `tmp/` for a body in progress and opens it for writing.
  public func makeTemporaryFile() throws -> (path: String, descriptor: Int32) {
    _ = try writableDatabase()
    return try FileIO.makeTemporaryFile(in: layout.tmpDirectory.path, prefix: "part-")
  }

  /// Creates `data/ab/` for `file` once per process.
  func prepareShard(of file: String) throws {
    let shard = String(file.prefix(2))
    lock.lock()
    let known = preparedShards.contains(shard)
    lock.unlock()
    if known { return }
    try CacheLayout.makeDirectory(layout.dataDirectory.path + "/" + shard)
    lock.lock()
    preparedShards.insert(shard)
    lock.unlock()
  }

  /// Forgets which shard directories exist, after `data/` was replaced.
  func forgetPreparedShards() {
    lock.lock()
    preparedShards.removeAll()
    lock.unlock()
  }

  // MARK: Lookup

  /// The index row of `key`, without recording an access or checking the file.
  public func entry(forKey key: String) throws -> CacheEntry? {
    try read(orIfMissing: nil) { db in try CacheEntry.fetchOne(db, key: key) }
  }

  /// Looks `key` up in this cache, then in the read-only directories. A row whose file is gone
  /// is a miss and the row is dropped. A local hit records the access when `touch` is set.
  public func lookup(key: String, touch: Bool = true) throws -> CacheHit? {
    if let hit = try lookupLocal(key: key, touch: touch) { return hit }
    return lookupReadOnly(key: key)
  }

  /// Looks `key` up in this cache only.
  public func lookupLocal(key: String, touch: Bool = true) throws -> CacheHit? {
    guard let entry = try entry(forKey: key) else { return nil }
    let path = layout.dataPath(entry.file)
    guard FileIO.isFile(path) else {
      try dropIfFileMissing(key: key)
      return nil
    }
    guard touch else { return .local(entry, path: path) }
    var touched = entry
    touched.lastAccess = try self.touch(keys: [key])
    touched.accessCount += 1
    return .local(touched, path: path)
  }

  /// Looks up many keys in this cache in one read transaction, without recording accesses;
  /// returns the hits whose file exists.
  public func lookupLocal(keys: [String]) throws -> [String: CacheHit] {
    let entries = try read(orIfMissing: [CacheEntry]()) { db in
      let statement = try db.cachedStatement(sql: "SELECT * FROM entry WHERE key = ?")
      return try keys.compactMap { try CacheEntry.fetchOne(statement, arguments: [$0]) }
    }
    var hits = [String: CacheHit]()
    for entry in entries {
      let path = layout.dataPath(entry.file)
      if FileIO.isFile(path) { hits[entry.key] = .local(entry, path: path) }
    }
    return hits
  }

  /// Looks `key` up in the read-only directories: `<md5>.<ext>`, then the legacy `<md5>`.
  public func lookupReadOnly(key: String) -> CacheHit? {
    guard !readOnlyDirectories.isEmpty else { return nil }
    let name = CacheKey.fileName(for: key)
    let legacy = MD5.hex(of: key)
    for directory in readOnlyDirectories {
      for candidate in Set([name, legacy]).sorted(by: { $0.count > $1.count }) {
        let path = directory.appendingPathComponent(candidate).path
        if FileIO.isFile(path) { return .readOnly(path: path) }
      }
    }
    return nil
  }

  /// Records a use of each of `keys` (last access = now, count + 1) in one transaction;
  /// returns the time recorded.
  @discardableResult
  public func touch(keys: [String]) throws -> Date {
    let time = now()
    guard !keys.isEmpty else { return time }
    try write { db in
      let statement = try db.cachedStatement(
        sql: "UPDATE entry SET last_access = ?, access_count = access_count + 1 WHERE key = ?")
      for key in keys {
        try statement.execute(arguments: [time.timeIntervalSince1970, key])
      }
      try IndexSchema.increment(["hits": Int64(keys.count)], db)
    }
    return time
  }

  /// Drops the row of `key` if its file is (still) missing.
  private func dropIfFileMissing(key: String) throws {
    try write { db in
      guard let entry = try CacheEntry.fetchOne(db, key: key),
        !FileIO.isFile(layout.dataPath(entry.file))
      else { return }
      try IndexSchema.delete([entry], db)
    }
  }

  // MARK: Remove and size

  /// Removes `key`: its row, its file and the legacy no-extension file. Returns the removed row,
  /// or nil when nothing was there.
  @discardableResult
  public func remove(key: String, dryRun: Bool = false) throws -> RemovedEntry? {
    guard try database(create: false) != nil else { return nil }
    let file = CacheLayout.relativeFile(for: key)
    let legacy = String(file.prefix(2)) + "/" + MD5.hex(of: key)
    if dryRun {
      let entry = try self.entry(forKey: key)
      let hasFile = FileIO.isFile(layout.dataPath(file)) || FileIO.isFile(layout.dataPath(legacy))
      return entry.map(RemovedEntry.init) ?? (hasFile ? RemovedEntry(key: key, file: file) : nil)
    }
    return try write { db in
      let entry = try CacheEntry.fetchOne(db, key: key)
      var removedFile = try FileIO.unlinkIfPresent(layout.dataPath(file))
      if legacy != file {
        removedFile = try FileIO.unlinkIfPresent(layout.dataPath(legacy)) || removedFile
      }
      if let entry {
        try IndexSchema.delete([entry], db)
        return RemovedEntry(entry)
      }
      return removedFile ? RemovedEntry(key: key, file: file) : nil
    }
  }

  /// Entries, bytes and allocated bytes, read from the running totals in O(1).
  public func totals() throws -> CacheTotals {
    try read(orIfMissing: .zero) { db in try IndexSchema.totals(db) }
  }

  /// The persistent counters (hits, stores, …) for `stats`.
  public func counters() throws -> [String: Int64] {
    try read(orIfMissing: [:]) { db in
      var result = [String: Int64]()
      for row in try Row.fetchAll(db, sql: "SELECT name, value FROM counter") {
        result[row[0]] = row[1]
      }
      return result
    }
  }

  /// Adds `amounts` to the persistent counters.
  public func incrementCounters(_ amounts: [String: Int64]) throws {
    try write { db in try IndexSchema.increment(amounts, db) }
  }
}

/// An entry that was (or, in a dry run, would be) removed.
public struct RemovedEntry: Sendable, Equatable {
  /// The cache key.
  public var key: String
  /// The URL it was fetched from, when known.
  public var url: String?
  /// The file under `data/`.
  public var file: String
  /// Logical size in bytes.
  public var size: Int64
  /// Allocated size in bytes.
  public var allocated: Int64
  /// Last use, when known.
  public var lastAccess: Date?

  init(_ entry: CacheEntry) {
    key = entry.key
    url = entry.url
    file = entry.file
    size = entry.size
    allocated = entry.allocated
    lastAccess = entry.lastAccess
  }

  init(key: String, file: String) {
    self.key = key
    self.file = file
    size = 0
    allocated = 0
  }
}

extension DiskCache {
  /// Records a successful revalidation (304) of `key`: new validators when the server sent
  /// them, and a use. Returns the updated row, or nil when the entry is gone.
  public func revalidate(key: String, with metadata: EntryMetadata) throws -> CacheEntry? {
    let time = now()
    return try write { db in
      guard var entry = try CacheEntry.fetchOne(db, key: key) else { return nil }
      if let etag = metadata.etag { entry.etag = etag }
      if let lastModified = metadata.lastModified { entry.lastModified = lastModified }
      entry.lastAccess = time
      entry.accessCount += 1
      try entry.update(db)
      try IndexSchema.increment(["revalidations": 1], db)
      return entry
    }
  }
}
