import FoundationEssentials
import Glibc

/// One shard being written (docs/design.md, Export; never a truncated shard): its files go
/// under hidden names of this process (`.export…-PID-START-NNNNN.tar`) and take their names
/// only when whole, the stats file last, so a kill at any moment leaves whole shards and
/// leftovers a later run removes (``removeLeftovers(in:)``).
final class ShardOutput {
  private let directory: String
  private let name: String
  private let format: ExportFormat
  private let partial: String
  private var tar: TarWriter?
  private var descriptor: Int32 = -1
  private var metadata = [UInt8]()
  private var finished = false

  /// The prefix of this host's leftovers: other machines writing to a shared folder name
  /// theirs differently, so none removes another's shard in progress.
  private static let kind = ".export" + String(MD5.hex(of: hostName).prefix(8))

  /// Starts shard `name` in `directory`.
  init(directory: String, name: String, format: ExportFormat) throws {
    (self.directory, self.name, self.format) = (directory, name, format)
    partial = FileIO.path("\(Self.kind)-\(ProcessTag.current)-\(name)", in: directory)
    switch format {
    case .webdataset:
      descriptor = open(partial + ".tar", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else { throw CacheError.posix("cannot create", path: partial + ".tar") }
      tar = TarWriter(descriptor: descriptor, display: partial + ".tar")
    case .files:
      try? FileTree.remove(partial)
      guard mkdir(partial, 0o755) == 0 else {
        throw CacheError.posix("cannot create", path: partial)
      }
    }
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
    if !finished { abandon() }
  }

  /// Adds one file of a sample (`KEY.jpg`, `KEY.json`, `KEY.txt`).
  func add(_ file: String, bytes: [UInt8], modified: Int64) throws {
    if tar != nil {
      try tar?.add(name: file, bytes: bytes, modified: modified)
      return
    }
    let path = partial + "/" + file
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot create", path: path) }
    defer { close(fd) }
    try bytes.withUnsafeBytes { try FileIO.writeAll(fd, $0, display: path) }
  }

  /// Adds a row to the shard's metadata table (`NNNNN.jsonl`).
  func addMetadata(_ line: [UInt8]) {
    metadata.append(contentsOf: line)
    metadata.append(0x0A)
  }

  /// Makes the shard whole: the samples, then the metadata table, then `stats` under their
  /// names, each synced first, and the names synced last.
  func finish(_ stats: [UInt8]) throws {
    if var tar {
      try tar.finish()
      guard fsync(descriptor) == 0 else { throw CacheError.posix("cannot sync", path: partial) }
      try FileIO.rename(partial + ".tar", to: FileIO.path(name + ".tar", in: directory))
    } else {
      // Every sample file synced at once (`sync`: Swift's Glibc has no `syncfs`), before
      // the folder is named: one call a shard, not three a sample.
      Glibc.sync()
      let target = FileIO.path(name, in: directory)
      try FileTree.remove(target)
      try FileIO.rename(partial, to: target)
    }
    try place(metadata, as: name + ".jsonl")
    try place(stats, as: name + "_stats.json")
    // The names themselves: the folder's entries synced, so a power loss keeps them.
    try OpenDirectory.open(directory)?.sync()
    finished = true
  }

  /// Writes `bytes` under a hidden name, syncs it and gives it `file`'s name.
  private func place(_ bytes: [UInt8], as file: String) throws {
    let hidden = partial + "-" + file
    let fd = open(hidden, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CacheError.posix("cannot create", path: hidden) }
    defer { close(fd) }
    try bytes.withUnsafeBytes { try FileIO.writeAll(fd, $0, display: hidden) }
    guard fsync(fd) == 0 else { throw CacheError.posix("cannot sync", path: hidden) }
    try FileIO.rename(hidden, to: FileIO.path(file, in: directory))
  }

  /// Removes what was written of the shard.
  func abandon() {
    finished = true
    try? FileTree.remove(format == .webdataset ? partial + ".tar" : partial)
  }

  /// Removes the leftovers of this host's exports into `directory` whose process is gone.
  static func removeLeftovers(in directory: String) {
    for file in DirectoryListing.names(in: directory)
    where file.hasPrefix(kind + "-") && ProcessTag.ownerIsGone(file) {
      try? FileTree.remove(FileIO.path(file, in: directory))
    }
  }

  /// This machine's name (`gethostname`).
  private static var hostName: String {
    var bytes = [CChar](repeating: 0, count: 256)
    guard gethostname(&bytes, bytes.count - 1) == 0 else { return "" }
    return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
