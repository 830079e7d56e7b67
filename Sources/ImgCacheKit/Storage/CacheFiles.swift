import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// The cache's own files, reached from `$DIR` by descriptor without following any link
/// inside it, so that nothing outside the cache is ever deleted (docs/design.md, On disk).
extension DiskCache {
  /// Removes the data files `files` (`ab/<name>`), up to four folders at a time; returns the
  /// folders left alone because they are not real folders (`data/ab`).
  func unlinkData(_ files: [String]) throws -> [String] {
    var byShard = [String: [String]]()
    for file in files {
      byShard[String(file.prefix(2)), default: []].append(String(file.dropFirst(3)))
    }
    let groups = Array(byShard)
    let parts = min(4, max(1, files.count / 64), max(1, groups.count))
    let outcome = Mutex<(foreign: [String], error: (any Error)?)>(([], nil))
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      do {
        guard let data = try dataDirectory() else { return }
        for index in stride(from: part, to: groups.count, by: parts) {
          let (folder, names) = groups[index]
          switch try data.child(folder) {
          case .directory(let directory): for name in names { try directory.unlink(name) }
          case .missing: continue
          case .foreign: outcome.withLock { $0.foreign.append("data/" + folder) }
          }
        }
      } catch {
        outcome.withLock { state in if state.error == nil { state.error = error } }
      }
    }
    let (foreign, error) = outcome.withLock { ($0.foreign, $0.error) }
    if let error { throw error }
    return foreign.sorted()
  }

  /// `data/`, opened; nil when the cache has none. Throws when it is a link.
  func dataDirectory() throws -> OpenDirectory? {
    guard let root = try layout.openRoot() else { return nil }
    switch try root.child("data") {
    case .directory(let data): return data
    case .missing: return nil
    case .foreign: throw CacheLayout.foreign(layout.dataFolder)
    }
  }

  /// Removes the entries of `tmp/` (and leftovers of an interrupted clear in `$DIR`) last
  /// modified at or before `cutoff`, or whose process is gone, at once; a `tmp/` that is a link
  /// is reported, never entered.
  func sweepTemporaries(
    before cutoff: TimeInterval, partialsBefore partialCutoff: TimeInterval, dryRun: Bool
  ) throws -> (swept: CountedExamples, foreign: [String]) {
    guard let root = try layout.openRoot() else { return (CountedExamples(), []) }
    var swept = CountedExamples()
    var foreign = [String]()
    // A partial body kept for a resumed download lives until `partialCutoff`, whoever wrote it.
    let isStale = { (directory: OpenDirectory, name: String, partialCutoff: TimeInterval) -> Bool in
      guard let info = directory.status(name) else { return false }
      let modified = Double(info.st_mtim.tv_sec)
      if name.hasPrefix(CacheLayout.partialPrefix) { return modified <= partialCutoff }
      return modified <= cutoff || ProcessTag.ownerIsGone(name)
    }
    for name in try root.names()
    where name.hasPrefix(Self.trashPrefix) && isStale(root, name, cutoff) {
      if !dryRun { try root.removeTree(name) }
      swept.add(name)
    }
    switch try root.child("tmp") {
    case .directory(let tmp):
      for name in try tmp.names() where isStale(tmp, name, partialCutoff) {
        if !dryRun { try tmp.removeTree(name) }
        swept.add(name)
      }
    case .missing: break
    case .foreign: foreign.append("tmp")
    }
    return (swept, foreign)
  }

  /// The files in `tmp/` (downloads in progress or left by a killed process) and their bytes.
  public func temporaryUsage() throws -> (files: Int, bytes: Int64) {
    guard let root = try layout.openRoot(), case .directory(let tmp) = try root.child("tmp") else {
      return (0, 0)
    }
    var usage = (files: 0, bytes: Int64(0))
    for name in try tmp.names() {
      guard let info = tmp.status(name), (info.st_mode & S_IFMT) == S_IFREG else { continue }
      usage.files += 1
      usage.bytes += Int64(info.st_size)
    }
    return usage
  }

  /// Where `clear` moves `data/` before deleting it: in `$DIR`, never through `tmp/`.
  static let trashPrefix = ".trash-"
}
