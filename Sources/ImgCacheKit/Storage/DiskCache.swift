import Dispatch
import FoundationEssentials
import Synchronization

/// The local tier: one cache directory with its SQLite index (docs/design.md, On disk and Cache
/// semantics), safe for several processes at once.
///
/// Every change to `data/` happens inside a write transaction of the index, so a row and its
/// file change together as seen by every other process.
///
/// Lock rule: `preparedShards` guards a set of names; no call leaves its locked region.
public final class DiskCache: Sendable {
  /// The paths of the cache.
  public let layout: CacheLayout
  /// The clock; tests move it.
  package let now: @Sendable () -> Date
  /// The index.
  package let index: Index
  private let preparedShards = Mutex<Set<String>>([])
  /// Whether ``prepare()`` made the cache's folders in this process.
  let prepared = Atomic<Bool>(false)
  /// When interrupted downloads are kept and resumed.
  public let resume: ResumePolicy
  /// Writes and deletes the records of partial bodies in the order they were asked for, off
  /// the download loop's thread (a `clean` holding the write lock stalls this queue only).
  let partialRecords = DispatchQueue(label: "imgcache.partial-records")
  /// The download locks of each key, shared with every process using this cache.
  package let keyLocks: KeyLocks

  /// Opens the cache at `directory`; nothing is created until the first write.
  public convenience init(
    directory: URL, resume: ResumePolicy = ResumePolicy(),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.init(path: directory.path, resume: resume, now: now)
  }

  /// Opens the cache at the folder `path`; nothing is created until the first write.
  public init(
    path: String, resume: ResumePolicy = ResumePolicy(),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.resume = resume
    let layout = CacheLayout(path: path)
    self.layout = layout
    self.now = now
    keyLocks = KeyLocks(path: layout.keyLocksFile)
    index = Index(path: layout.indexPath) { try layout.prepareRoot() }
  }

  // MARK: Lookup

  /// The index row of `key`, without recording an access or checking the file.
  /// The uses other processes left in the use journal are folded in (docs/design.md, On disk).
  public func entry(forKey key: String) throws -> CacheEntry? {
    guard let entry = try index.entry(forKey: key) else { return nil }
    return index.foldingJournal([entry], now: now()).first ?? entry
  }

  /// Looks `key` up. A row whose file is gone is a miss and the row is dropped. A hit records
  /// the access when `touch` is set.
  public func lookup(key: String, touch: Bool = true) throws -> CacheHit? {
    guard let entry = try index.entry(forKey: key) else { return nil }
    let path = layout.dataPath(entry.file)
    guard FileIO.isFile(path) else {
      // Looked at again in a write transaction: another process may have stored it meanwhile.
      try index.transactionIfExists(orIfMissing: ()) { tx in
        guard let entry = try tx.entry(forKey: key), !FileIO.isFile(layout.dataPath(entry.file))
        else { return }
        try tx.delete([entry])
      }
      return nil
    }
    guard touch else { return .local(entry, path: path) }
    var touched = entry
    touched.lastAccess = try use(
      [(key, entry.digest)], counting: [.hitsLocal: 1, .bytesServed: entry.size])
    touched.accessCount += 1
    return .local(touched, path: path)
  }

  /// Looks up many keys in one read transaction; returns the hits whose file exists. With
  /// `touch`, records every hit's use in one write transaction.
  public func hits(forKeys keys: [String], touch: Bool) throws -> [String: CacheHit] {
    try hits(in: index.lookUp(keys.distinct()), touch: touch)
  }

  /// The index's rows of `keys` and whether any failed request is recorded (with `variants`,
  /// which are out of date), in one read without recording a use: the pipeline's first look
  /// at a batch (``hits(in:touch:)``).
  package func lookUp(keys: [String], variants: Bool = false) throws -> IndexLookup {
    try index.lookUp(keys, variants: variants)
  }

  /// The hits among `lookup`'s rows whose file exists, as ``hits(forKeys:touch:)``, from rows
  /// already read.
  package func hits(in lookup: IndexLookup, touch: Bool) throws -> [String: CacheHit] {
    var found = [(entry: CacheEntry, path: String)]()
    found.reserveCapacity(lookup.entries.count)
    for entry in lookup.entries {
      let path = layout.dataPath(entry.file)
      if FileIO.isFile(path) { found.append((entry, path)) }
    }
    var time: Date?
    if touch && !found.isEmpty {
      time = try use(
        found.map { ($0.entry.key, $0.entry.digest) },
        counting: [
          .hitsLocal: Int64(found.count), .bytesServed: found.reduce(0) { $0 + $1.entry.size },
        ])
    }
    var hits = [String: CacheHit](minimumCapacity: found.count)
    for (entry, path) in found {
      var used = entry
      if let time {
        // Fields beside the entry's box: no other field is copied.
        used.lastAccess = time
        used.accessCount += 1
      }
      hits[entry.key] = .local(used, path: path)
    }
    return hits
  }

  /// Records a use of each of `keys` (last access = now, count + 1) in one transaction;
  /// returns the time recorded.
  @discardableResult
  public func touch(keys: [String], served: Int64 = 0) throws -> Date {
    try use(
      keys.map { ($0, KeyDigest(key: $0)) },
      counting: [.hitsLocal: Int64(keys.count), .bytesServed: served])
  }

  /// Records a use of each of `keys` (last access = now, count + 1) with `counts`; returns
  /// the time recorded.
  @discardableResult
  package func use(_ keys: [(key: String, digest: KeyDigest)], counting counts: [Counter: Int64])
    throws
    -> Date
  {
    let time = now()
    if !keys.isEmpty { index.noteUses(of: keys, at: time, counts: counts) }
    return time
  }

  /// One page of a listing: up to `limit` entries matching `filter` in `order`, after `cursor`
  /// (the previous page's `next`). Never reads the data directory.
  public func entries(
    matching filter: EntryFilter, order: EntryOrder = .access, reverse: Bool = false,
    after cursor: EntryCursor? = nil, limit: Int = 1_000
  ) throws -> EntryPage {
    try index.entries(matching: filter, order: order, reverse: reverse, after: cursor, limit: limit)
  }

  /// The rows of those of `keys` that are stored, without recording a use.
  public func storedEntries(forKeys keys: [String]) throws -> [CacheEntry] {
    try index.entries(forKeys: keys)
  }

  // MARK: Remove, totals, counters

  /// Removes `key`: its row, its file and the legacy no-extension file, in one write transaction
  /// (the files unlinked before the row is deleted). Returns the removed row, or nil when
  /// nothing was there.
  @discardableResult
  public func remove(key: String, dryRun: Bool = false) throws -> RemovedEntry? {
    guard index.exists else { return nil }
    let file = CacheLayout.relativeFile(for: key)
    let legacy = CacheLayout.relativeFile(named: MD5.hex(of: key))
    let paths = Set([layout.dataPath(file), layout.dataPath(legacy)])
    if dryRun {
      // As the remove's transaction would see it: the uses in the journal folded in.
      let entry = try self.entry(forKey: key)
      let hasFile = paths.contains(where: FileIO.isFile)
      return entry.map(RemovedEntry.init) ?? (hasFile ? RemovedEntry(key: key, file: file) : nil)
    }
    // The files go before the row, inside the transaction: on a full disk the room the index
    // needs is there by the commit (and on a retry).
    let (entry, removedFile) = try freeingRoom {
      try index.transactionIfExists(orIfMissing: (nil, false)) { tx -> (CacheEntry?, Bool) in
        let entry = try tx.entry(forKey: key)
        // A variant's file is named by the format it was made in, not by its key.
        let files = Set([file, legacy] + (entry.map { [$0.file] } ?? []))
        let present = files.contains { FileIO.isFile(layout.dataPath($0)) }
        if let folder = try unlinkData(Array(files)).first {
          throw CacheLayout.foreign(layout.rootPath + "/" + folder)
        }
        if let entry { try tx.delete([entry], counting: [.evictionsRemove: 1]) }
        return (entry, present)
      }
    }
    if let entry { return RemovedEntry(entry) }
    return removedFile ? RemovedEntry(key: key, file: file) : nil
  }

  /// Entries, bytes and allocated bytes, read from the running totals in O(1).
  public func totals() throws -> CacheTotals { try index.totals() }

  /// The entries grouped by format or host, largest first.
  public func breakdown(by breakdown: SizeBreakdown) throws -> [SizeGroup] {
    try index.breakdown(by: breakdown)
  }

  /// The persistent counters for `stats`.
  public func statistics() throws -> CacheStatistics { try index.statistics() }

  /// Zeroes the counters (not the totals) and records when.
  public func zeroStatistics() throws { try index.zeroStatistics(at: now()) }

  /// Notes counts with no write of their own; the next write transaction adds them.
  public func note(_ counts: [Counter: Int64]) { index.note(counts) }

  /// Notes a failed download under its class (before its failure record is written, so that
  /// transaction adds it).
  public func noteFailure(_ error: CacheError) {
    if let counter = Counter.failure(error.kind) { index.note([counter: 1]) }
  }

  /// Checkpoints and closes the index (a writing command calls this when it ends).
  public func close() {
    // Partial-download records handed over and not yet written go first: written after the
    // index closed, they would open it again and leave its WAL behind (or be lost at exit).
    flushPartialRecords()
    index.close()
  }

  /// Records a successful revalidation (304) of `key`: new validators when the server sent
  /// them, and a use. Returns the updated row, or nil when the entry is gone.
  public func revalidate(key: String, with metadata: EntryMetadata) throws -> CacheEntry? {
    try index.revalidate(
      key: key, etag: metadata.etag, lastModified: metadata.lastModified,
      freshness: metadata.freshness, at: now())
  }

  // MARK: Shards

  /// Creates `data/ab/` for `file` once per process.
  func prepareShard(of file: String) throws {
    let folder = String(file.prefix(2))
    if preparedShards.withLock({ $0.contains(folder) }) { return }
    try CacheLayout.makeDirectory(layout.dataFolder + "/" + folder)
    preparedShards.withLock { _ = $0.insert(folder) }
  }

  /// Forgets which folder directories exist, after `data/` was replaced.
  func forgetPreparedShards() {
    preparedShards.withLock { $0.removeAll() }
    prepared.store(false, ordering: .releasing)
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
