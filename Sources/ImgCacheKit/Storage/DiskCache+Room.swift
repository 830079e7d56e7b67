import FoundationEssentials
import Glibc

/// Room on a full disk (docs/design.md, A full disk): kept partial bodies yield to new images,
/// and the commands that free room get room to start.
extension DiskCache {
  /// A kept partial body in `tmp/`: its name, when it was last written, its allocated bytes.
  struct KeptPartial {
    var name: String
    var modified: Double
    var allocated: Int64
  }

  /// The partial bodies kept in `tmp/` for resumed downloads, least recently written first.
  func keptPartials() -> [KeptPartial] {
    guard let root = try? layout.openRoot(), case .directory(let tmp)? = try? root.child("tmp"),
      let names = try? tmp.names()
    else { return [] }
    return names.filter { $0.hasPrefix(CacheLayout.partialPrefix) }.compactMap { name in
      guard let info = tmp.status(name), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
      let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
      return KeptPartial(name: name, modified: modified, allocated: Int64(info.st_blocks) * 512)
    }.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
  }

  /// Gives up kept partial bodies, least recently written first, until the cache's
  /// filesystem has `needed` bytes free (every one when `needed` is nil), sparing the one of
  /// `key` (a download resuming it now) and those being written, at most `limit` of them.
  /// Their records go too. Returns the names given up.
  @discardableResult
  package func giveUpPartials(
    needed: Int64? = nil, sparing key: String? = nil, atMost limit: Int = .max
  )
    -> [String]
  {
    let spared = key.map { CacheLayout.partialPrefix + MD5.hex(of: $0) }
    guard let root = try? layout.openRoot(), case .directory(let tmp)? = try? root.child("tmp")
    else { return [] }
    var given = [String]()
    for partial in keptPartials() where partial.name != spared && given.count < limit {
      if let needed, let free = freeSpace(), free >= needed { break }
      // One a download is writing now (here or in another process: it holds its key's lock)
      // is left alone: unlinked, it would go on taking room until that download ends.
      let digest = partial.name.dropFirst(CacheLayout.partialPrefix.utf8.count)
      guard let offset = KeyLocks.offset(forDigest: digest),
        let lock = try? keyLocks.attempt(offset: offset)
      else { continue }
      if (try? tmp.unlink(partial.name)) == true {
        given.append(partial.name)
        // Its record too, before the lock is let go: a download of that key starting now
        // keeps its own.
        try? index.deletePartials(files: ["tmp/" + partial.name])
      }
      lock.release()
    }
    guard !given.isEmpty else { return [] }
    note([.partialsGivenUp: Int64(given.count)])
    return given
  }

  /// The bytes an unprivileged writer may still use on the cache's filesystem; nil when the
  /// system does not say.
  func freeSpace() -> Int64? { IndexRoom.space(at: layout.rootPath)?.free }

  /// Whether the cache's filesystem is full: less free than the index's reserve would take.
  func isShortOfRoom() -> Bool {
    guard let space = IndexRoom.space(at: layout.rootPath) else { return false }
    return space.free < IndexRoom.reserveSize(onFilesystemOf: space.total)
  }

  /// Runs `body`, a write into the cache that needs `needed` bytes; when it fails for lack of
  /// room, gives up kept partial bodies (oldest first, until that much is free) and runs it
  /// once more.
  package func makingRoom<T>(needed: Int64, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch  where CacheError.isNoSpace(error) {
      giveUpPartials(needed: needed)
      return try body()
    }
  }

  /// Runs `body`, a write that frees room (`clean`, `clear`, `remove`); when it fails for
  /// lack of room, gives up the index's reserve and every kept partial body, runs `making`
  /// (what frees room before the index can be written: `clear` deletes the files it moved
  /// aside), then runs `body` once more, and takes the reserve again if there is room.
  func freeingRoom<T>(making: () -> Void = {}, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch  where CacheError.isNoSpace(error) {
      index.releaseReserve()
      giveUpPartials()
      making()
      let result = try body()
      index.keepReserve()
      return result
    }
  }

  /// The kept partial bodies a clean gives up before it trims (a partial body is worth less
  /// than any stored image): every one on a full filesystem; else, when the entries and the
  /// partial bodies together exceed the size limit, the least recently written first until
  /// they are under `target × limit` or none is left. Returns their names in `tmp/`.
  func yieldPartials(policy: CleanPolicy, dryRun: Bool) throws -> [String] {
    let partials = keptPartials()
    guard !partials.isEmpty else { return [] }
    var count = 0
    if isShortOfRoom() {
      count = partials.count
    } else if policy.maxSize > 0 {
      let entries = try totals().allocated
      var kept = partials.reduce(Int64(0)) { $0 + $1.allocated }
      guard entries + kept > policy.maxSize else { return [] }
      let goal = policy.target * Double(policy.maxSize)
      for partial in partials where Double(entries + kept) >= goal {
        kept -= partial.allocated
        count += 1
      }
    }
    guard count > 0 else { return [] }
    return dryRun ? partials.prefix(count).map(\.name) : giveUpPartials(atMost: count)
  }
}
