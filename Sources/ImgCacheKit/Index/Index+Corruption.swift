import CSQLite
import FoundationEssentials
import Glibc

/// A damaged index: how its errors read, and moving it aside (`clear`).
extension Index {
  /// Moves a corrupt index (and its WAL) aside as `index.sqlite.corrupt-<time>`; the next
  /// write starts an empty one. Returns the new name.
  package func moveAside() throws -> String {
    close()
    let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
    try FileIO.rename(path, to: aside)
    for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
    return aside
  }

  /// Whether `error` says the index file is damaged or not a database.
  package static func isCorruption(_ error: any Error) -> Bool { corruption(in: error) != nil }

  /// The SQLite error under `error`, however deeply wrapped (``CacheError/underlying``,
  /// ``FullDisk/cause``): the one error the checks below read.
  static func databaseError(in error: any Error) -> SQLiteError? {
    var current: (any Error)? = error
    while let error = current {
      if let database = error as? SQLiteError { return database }
      current = (error as? CacheError)?.underlying ?? (error as? FullDisk)?.cause
    }
    return nil
  }

  /// The SQLite error under `error` that says the file is damaged.
  static func corruption(in error: any Error) -> SQLiteError? {
    guard let database = databaseError(in: error),
      database.code == SQLITE_CORRUPT || database.code == SQLITE_NOTADB
    else { return nil }
    return database
  }

  /// The SQLite error under `error` that says the disk is full: `SQLITE_FULL`, shared memory
  /// that could not grow, or a mapping ``IndexRoom`` refused for lack of room.
  static func fullDisk(in error: any Error) -> SQLiteError? {
    guard let database = databaseError(in: error),
      database.code == SQLITE_FULL || sharedMemoryRefused(in: database)
    else { return nil }
    return database
  }

  /// Wraps an error of the index, pointing at `clear` when the file is damaged: one line that
  /// names SQLite's own error, however many layers wrapped it already.
  func failure(_ what: String, _ error: any Error) -> CacheError {
    if let full = Self.fullDisk(in: error) {
      return CacheError(
        .localIO, "\(what) \(path): no space left on device (\(CacheError.describe(full)))",
        underlying: FullDisk(cause: full))
    }
    guard let root = Self.corruption(in: error) else {
      return CacheError.io("\(what) \(path)", error)
    }
    return CacheError(
      .localIO,
      "the index \(path) is damaged (\(CacheError.describe(root))): run 'imgcache clear' to "
        + "move it aside and start empty", underlying: root)
  }
}
