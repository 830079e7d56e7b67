import FoundationEssentials
import Glibc

/// Shards sent to a store (`-o https://…`, `-o s3://…`; docs/design.md, Export): each is made
/// whole in the local folder as usual, then its files are sent, the samples' tar last, and
/// removed here. A re-run asks the store for a shard's stats file and tar to know it is whole.
extension DatasetExporter {
  /// A file of the export, here or brought from the store into the folder; `done` removes a
  /// copy brought.
  struct Fetched {
    var path: String
    var brought: Bool

    func done() { if brought { unlink(path) } }
  }

  /// The largest stats file or metadata table brought back from a store.
  static let largestBrought: Int64 = 1 << 30

  /// `file` of the export: in the folder, or (with a store) brought from it; nil when there
  /// is none.
  func fetched(_ file: String) throws -> Fetched? {
    let path = FileIO.path(file, in: options.directory)
    guard let store = options.store else {
      return access(path, F_OK) == 0 ? Fetched(path: path, brought: false) : nil
    }
    let copy = FileIO.path(".fetched-\(ProcessTag.current)-" + file, in: options.directory)
    guard try store.download(file, into: copy, maxSize: Self.largestBrought) else {
      unlink(copy)
      return nil
    }
    return Fetched(path: copy, brought: true)
  }

  /// Shard `number`'s metadata table, here or brought from the store; nil when there is none.
  func metadataTable(_ number: Int) throws -> Fetched? {
    try fetched(naming.shardName(number) + ".jsonl")
  }

  /// Sends the whole shard `number` to the store, if there is one: its metadata table, its
  /// stats file, then its samples; each removed here once sent. A file over the store's
  /// largest upload stops it before anything is sent or deleted. A tar of an earlier run (a
  /// shard made again: the table grew) is deleted first, so that new tables never stand
  /// beside old samples, even when the new tar's PUT fails.
  func publish(_ number: Int) throws {
    guard let store = options.store else { return }
    let name = naming.shardName(number)
    let files = [name + ".jsonl", name + "_stats.json", name + ".tar"]
    for file in files {
      try store.checkSize(of: FileIO.path(file, in: options.directory), as: file)
    }
    try store.delete(name + ".tar")
    for file in files {
      let path = FileIO.path(file, in: options.directory)
      try store.upload(path, as: file)
      unlink(path)
    }
  }
}
