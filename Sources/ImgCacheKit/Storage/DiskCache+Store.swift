import FoundationEssentials
import Glibc
import Synchronization

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
  /// Its file in `data/` (``CacheLayout/relativeFile(for:)`` of the key), when the caller
  /// already made it: a file name costs an MD5 and a parse of the key.
  package var knownFile: String?

  /// For a variant: the link to its original, recorded with its row.
  package var variant: VariantLink?

  /// The relative name of its file in `data/`.
  var file: String { knownFile ?? CacheLayout.relativeFile(for: key) }

  /// Describes a body to store.
  public init(temporaryPath: String, key: String, url: String, metadata: EntryMetadata) {
    self.temporaryPath = temporaryPath
    self.key = key
    self.url = url
    self.metadata = metadata
  }
}

extension DiskCache {
  /// Creates an empty temporary file in `tmp/` for a body in progress and opens it for writing.
  public func makeTemporaryFile() throws -> (path: String, descriptor: Int32) {
    try prepare()
    return try FileIO.makeTemporaryFile(
      in: layout.tmpPath, prefix: ProcessTag.partPrefix)
  }

  /// Makes sure the cache exists (index, and `data/` and `tmp/` as real folders), before a
  /// download writes to `tmp/`; once per process (a prefetch starts thousands of downloads),
  /// again after a clear. An index that exists is opened for writing by the first store, not
  /// here: downloads never wait for another process's write lock before they start.
  public func prepare() throws {
    if prepared.load(ordering: .acquiring) { return }
    // One this process cannot write is opened all the same: it fails here, before a download.
    if !index.exists || access(index.path, W_OK) != 0 || access(layout.rootPath, W_OK) != 0 {
      _ = try index.writer()
    }
    try layout.prepare()
    index.keepReserve()
    prepared.store(true, ordering: .releasing)
  }

  /// Moves the complete file at `temporaryPath` into the cache under `key`, with its metadata,
  /// replacing any previous entry and file of that key. The file is renamed, then the row
  /// committed, in one write transaction.
  @discardableResult
  public func store(
    _ temporaryPath: String, key: String, url: String, metadata: EntryMetadata
  ) throws -> CacheEntry {
    let item = PendingStore(temporaryPath: temporaryPath, key: key, url: url, metadata: metadata)
    guard let result = try store([item]).first else {
      throw CacheError(.localIO, "cannot store the body", url: url)
    }
    return try result.get()
  }

  /// Stores many bodies in one write transaction (a prefetch's batched index writes): each
  /// body is renamed into `data/`, then its row written, so the row and the file appear
  /// together to every process. Each item succeeds or fails on its own (a body that cannot be
  /// placed leaves no row; the others are stored); a failed item's temporary file is removed.
  /// Throws when the transaction itself fails.
  public func store(_ items: [PendingStore]) throws -> [Result<CacheEntry, CacheError>] {
    try store(items, counting: (.downloads, .bytesDownloaded))
  }

  /// Stores `items` as ``store(_:)`` does, counting them under `counters` (a remote copy is a
  /// remote hit, not a download).
  package func store(_ items: [PendingStore], counting counters: (stored: Counter, bytes: Counter))
    throws -> [Result<CacheEntry, CacheError>]
  {
    guard !items.isEmpty else { return [] }
    let time = now()
    var results = [Result<CacheEntry, CacheError>?](repeating: nil, count: items.count)
    var ready = [(Int, CacheEntry)]()
    for (position, item) in items.enumerated() {
      guard let sizes = FileIO.sizes(of: item.temporaryPath) else {
        results[position] = .failure(
          CacheError(.localIO, "cannot store the body: its temporary file is gone", url: item.url))
        continue
      }
      let file = item.file
      do { try prepareShard(of: file) } catch {
        results[position] = .failure(CacheError.io("cannot store the body", error, url: item.url))
        continue
      }
      ready.append(
        (
          position,
          CacheEntry(
            key: item.key, url: item.url, file: file, size: sizes.size,
            allocated: sizes.allocated, metadata: item.metadata, at: time)
        ))
    }
    // Kept partial bodies yield to complete ones (already in tmp/, they need room for their
    // rows only): on a full disk, given up, oldest first, then the transaction once more.
    try makingRoom(needed: Self.indexRoomPerStore * Int64(ready.count)) {
      try commit(ready, of: items, counting: counters, into: &results)
    }
    var final = [Result<CacheEntry, CacheError>]()
    for (item, result) in zip(items, results) {
      let outcome = result ?? .failure(CacheError(.localIO, "not stored", url: item.url))
      if case .failure = outcome { unlink(item.temporaryPath) }
      final.append(outcome)
    }
    return final
  }

  /// Room a store's row may take in the index (its pages in the WAL), asked for when kept
  /// partial bodies are given up for it.
  package static let indexRoomPerStore: Int64 = 64 << 10

  /// One write transaction of ``store(_:counting:)``: each body of `ready` renamed into
  /// `data/`, then its row written. When the transaction fails, the bodies it placed go back
  /// to their temporary files before it is rolled back, under its write lock (none stays in
  /// `data/` without a row, and no other process's body is taken back), and their results are
  /// cleared; so it may run again. A body that replaced an earlier one of its key leaves that
  /// entry without its file: a miss.
  private func commit(
    _ ready: [(Int, CacheEntry)], of items: [PendingStore],
    counting counters: (stored: Counter, bytes: Counter),
    into results: inout [Result<CacheEntry, CacheError>?]
  ) throws {
    final class Attempt: @unchecked Sendable {
      // @unchecked: used by the calling thread only, inside one write of the index.
      var placed = [(position: Int, file: String)]()
      var results: [Result<CacheEntry, CacheError>?]
      init(_ results: [Result<CacheEntry, CacheError>?]) { self.results = results }
    }
    let attempt = Attempt(results)
    defer { results = attempt.results }
    let undo = { [layout] in
      for (position, file) in attempt.placed {
        _ = Glibc.rename(layout.dataPath(file), items[position].temporaryPath)
        attempt.results[position] = nil
      }
      attempt.placed = []
    }
    try index.transaction(undoing: undo) { tx in
      var batch = try tx.storeBatch(counting: counters)
      for (position, entry) in ready {
        let item = items[position]
        do { try moveIntoPlace(item.temporaryPath, file: entry.file) } catch {
          attempt.results[position] = .failure(
            CacheError.io("cannot store the body", error, url: entry.url))
          continue
        }
        attempt.placed.append((position, entry.file))
        attempt.results[position] = .success(try batch.store(entry, link: item.variant))
      }
      try batch.finish()
    }
  }

  /// Renames a temporary file into `data/`; re-creates the folder once if a clear in another
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

extension DiskCache: BlobStore {
  public var label: String { "local \(layout.rootPath)" }
  public var isReadOnly: Bool { false }

  public func lookup(keys: [String], touch: Bool) async throws -> [String: CacheHit] {
    try hits(forKeys: keys, touch: touch)
  }

  public func store(key: String, url: String, copying path: String, metadata: EntryMetadata)
    async throws
  {
    let (temporary, descriptor) = try makeTemporaryFile()
    Glibc.close(descriptor)
    do {
      try FileIO.copy(path, to: temporary)
    } catch {
      unlink(temporary)
      throw CacheError.io("cannot copy \(path)", error, url: url)
    }
    try store(temporary, key: key, url: url, metadata: metadata)
  }

  public func remove(key: String) async throws -> Bool {
    try (remove(key: key, dryRun: false) as RemovedEntry?) != nil
  }
}
