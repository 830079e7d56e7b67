import FoundationEssentials

/// Queries on the `entry` table and the running totals. The writes that change entries
/// together with their files run in an ``IndexTransaction`` that storage orders.
extension Index {
  /// The row of `key` with the uses recorded so far, without recording an access.
  package func entry(forKey key: String) throws -> CacheEntry? {
    try foldingUnwrittenUses {
      try read(orIfMissing: nil) { db in try EntryUses.entry(forKey: key, db) }
    } fold: { entry, unwritten in
      entry.map { entry in
        var entry = entry
        unwritten.fold(into: &entry)
        return entry
      }
    }
  }

  /// The rows of those of `keys` that exist, in the order of `keys`, with the uses recorded so
  /// far: one statement per ``PaddedBatch/limit`` keys (`key IN (…)`), outside a transaction.
  package func entries(forKeys keys: [String]) throws -> [CacheEntry] {
    let rows = try lookUp(keys).entries
    guard keys.count > 1 else { return rows }
    var byKey = [String: CacheEntry](minimumCapacity: rows.count)
    for entry in rows { byKey[entry.key] = entry }
    return keys.compactMap { byKey[$0] }
  }

  /// The rows of those of `keys` that exist, as ``entries(forKeys:)`` but in no particular
  /// order, and whether any failed request is recorded, read by the same statements: the
  /// lookup of a batch, whose failure check is then skipped when none is (``IndexLookup``).
  /// With `variants` (the keys are variants' derived keys), the same read transaction also
  /// finds those made from a body their original no longer has (``IndexLookup/outdated``).
  package func lookUp(_ keys: [String], variants: Bool = false) throws -> IndexLookup {
    guard !keys.isEmpty else { return IndexLookup(keys: keys, entries: [], failuresRecorded: nil) }
    let (entries, failures, outdated) = try foldingUnwrittenUses {
      try peek(orIfMissing: ([CacheEntry](), Bool?.some(false), Set<String>())) { db in
        var entries = [CacheEntry]()
        var failures: Bool?
        for (size, padded) in PaddedBatch.chunks(of: keys) {
          let statement = try self.statement(.entriesByKey(size: size), db) {
            EntryUses.selectByKeys(count: size)
          }
          let asked = AskedKeys(padded)
          statement.reset()
          for (index, digest) in asked.digests.enumerated() {
            try statement.bind(digest, at: Int32(index + 1))
          }
          try statement.run { row in
            let entry = try CacheEntry(columns: row)
            failures = try row.value(EntryUses.failuresColumn) as Bool
            // Found by its digest: a row of another key that shares it is no hit.
            if asked.contains(entry) { entries.append(entry) }
          }
        }
        let outdated = variants && !entries.isEmpty ? try self.outdatedVariants(keys, db) : []
        return (entries, failures, outdated)
      }
    } fold: { read, unwritten in
      // A use changes fields kept beside the entry's box: folding it in copies no other field.
      var (entries, failures, outdated) = read
      for index in entries.indices { unwritten.fold(into: &entries[index]) }
      return (entries, failures, outdated)
    }
    return IndexLookup(
      keys: keys, entries: entries, failuresRecorded: failures, outdated: outdated)
  }

  /// Records a revalidation (304) of `key` at `time`: new validators when the server sent them,
  /// and a use. Returns the updated row, or nil when the entry is gone.
  package func revalidate(
    key: String, etag: String?, lastModified: String?, freshness: ResponseFreshness,
    at time: Date
  ) throws -> CacheEntry? {
    try write { db in
      guard var entry = try EntryUses.take(key: key, db) else { return nil }
      if let etag { entry.etag = etag }
      if let lastModified { entry.lastModified = lastModified }
      entry.freshness = entry.freshness.updated(by: freshness)
      entry.lastAccess = time
      entry.accessCount += 1
      try IndexSchema.rewrite(entry, db)
      try IndexSchema.increment([.notModified: 1], db)
      try db.execute(sql: "DELETE FROM failed_request WHERE url = ?", [entry.url])
      return entry
    }
  }

  /// Entries, bytes and allocated bytes, read from the running totals in O(1).
  package func totals() throws -> CacheTotals {
    try read(orIfMissing: .zero) { db in try IndexSchema.totals(db) }
  }

  /// Adds `amounts` to the persistent counters.
  package func increment(_ amounts: [Counter: Int64]) throws {
    try write { db in try IndexSchema.increment(amounts, db) }
  }
}

/// What one read of the index says of a batch of keys (``Index/lookUp(_:)``).
package struct IndexLookup {
  /// The keys asked.
  package let keys: [String]
  /// The rows of those stored, in no particular order (one a key, when ``keys`` are distinct).
  package let entries: [CacheEntry]
  /// Whether any failed request is recorded; nil when no row came back to tell (every key
  /// missing), false when the cache does not exist.
  package let failuresRecorded: Bool?
  /// Of the keys asked, the variants made from a body their original no longer has (both
  /// SHA-256 known and different); read only when asked for (``Index/lookUp(_:variants:)``).
  package var outdated: Set<String> = []

  /// The lookup without `dropped` keys (refused since it was read): their rows are no hits.
  package func dropping(_ dropped: Set<String>) -> IndexLookup {
    guard !dropped.isEmpty else { return self }
    return IndexLookup(
      keys: keys.filter { !dropped.contains($0) },
      entries: entries.filter { !dropped.contains($0.key) }, failuresRecorded: failuresRecorded,
      outdated: outdated.subtracting(dropped))
  }
}

/// The keys of one batch of a lookup, with their digests (bound to its statement): whether a
/// row found by its digest is one of them, without hashing a string (a row of a key that
/// shares a digest's indexed half is not).
private struct AskedKeys {
  let keys: [String]
  let digests: [KeyDigest]
  /// The key of each indexed half; nil when two keys asked share one (then every key is
  /// compared).
  private let byHigh: [Int64: String]?

  init(_ keys: [String]) {
    self.keys = keys
    // The padding repeats the last key (PaddedBatch): its digest is made once.
    var digests = [KeyDigest]()
    digests.reserveCapacity(keys.count)
    for (index, key) in keys.enumerated() {
      digests.append(index > 0 && keys[index - 1] == key ? digests[index - 1] : KeyDigest(key: key))
    }
    self.digests = digests
    var byHigh = [Int64: String](minimumCapacity: keys.count)
    var ambiguous = false
    for (key, digest) in zip(keys, digests) {
      if let other = byHigh.updateValue(key, forKey: digest.high), other != key { ambiguous = true }
    }
    self.byHigh = ambiguous ? nil : byHigh
  }

  func contains(_ entry: CacheEntry) -> Bool {
    guard let byHigh else { return keys.contains(entry.key) }
    return byHigh[entry.digest.high] == entry.key
  }
}
