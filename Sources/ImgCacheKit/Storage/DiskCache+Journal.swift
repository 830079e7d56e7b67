import FoundationEssentials

extension DiskCache {
  /// `hits` with the uses the use journal holds of their entries folded in (last access, use
  /// count): what a record shows of an entry hit by processes whose uses wait in the journal
  /// (docs/design.md, On disk). Reads the journal once; nothing is taken from it.
  public func foldingJournal(_ hits: [CacheHit?]) -> [CacheHit?] {
    var entries = [CacheEntry]()
    for case .local(let entry, _)? in hits { entries.append(entry) }
    guard !entries.isEmpty else { return hits }
    var folded = index.foldingJournal(entries, now: now()).makeIterator()
    return hits.map { hit in
      guard case .local(_, let path)? = hit, let entry = folded.next() else { return hit }
      return .local(entry, path: path)
    }
  }
}
