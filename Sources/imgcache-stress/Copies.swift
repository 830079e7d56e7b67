import Dispatch
// The copies mode: a cache of a million entries in well under a minute, for the tests of flat
// memory and the benchmark's scale rows (bench/scale.py).
//
// The cache holds one real entry, the template (stored by `imgcache-stress populate DIR 1 1` or
// `imgcache fetch URL`). `copies DIR COUNT EMPTY` adds COUNT - 1 copies of its row, each with
// its own key (the template's key with `n=N` in its query), digest and file, one second of last
// access apart, in one statement that SQLite loops itself (the key's MD5 is an SQL function);
// meanwhile two threads write the files (the template's body, or nothing when EMPTY is 1, and
// then the rows say so, SHA-256 included). The totals are set last, in the same transaction.
import FoundationEssentials
import GRDB
import Glibc
import ImgCacheKit
import Synchronization

/// The key of copy `index` of `template`: `n=index` added to its query.
func copyKey(_ template: String, _ index: Int) -> String {
  template + (template.contains("?") ? "&" : "?") + "n=\(index)"
}

/// Writes the files of copies `range` of `template` under `data` (each `contents`).
func writeCopies(
  of template: String, _ range: Range<Int>, data: String, contents: [UInt8]
) -> Bool {
  for index in range {
    let path = data + CacheLayout.relativeFile(for: copyKey(template, index))
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return false }
    let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard written == contents.count else { return false }
  }
  return true
}

/// Adds `count - 1` copies of the one entry of the cache at `directory`.
func makeCopies(in directory: URL, count: Int, empty: Bool) throws {
  guard count >= 1 else { throw CopiesError.badCount }
  let layout = CacheLayout(root: directory)
  let database = try DatabaseQueue(path: layout.indexPath)
  let (columns, key, file) = try database.read { db in
    let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(entry)").map { $0["name"] as String }
    guard let row = try Row.fetchOne(db, sql: "SELECT key FROM entry"),
      let key = row["key"] as String?, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") == 1
    else { throw CopiesError.notOneEntry }
    return (columns, key, CacheLayout.relativeFile(for: key))
  }
  let data = layout.dataFolder + "/"
  let body = empty ? [] : [UInt8](try Data(contentsOf: URL(fileURLWithPath: data + file)))
  for shard in 0..<256 {
    try FileManager.default.createDirectory(
      atPath: data + Hex.encode([UInt8(truncatingIfNeeded: shard)]),
      withIntermediateDirectories: true
    )
  }
  // The files go in two threads beside SQLite's one (two cores; creating a file is most of it).
  let half = (1 + count) / 2
  let writers = Workers()
  for range in [1..<half, half..<count] {
    writers.start { writeCopies(of: key, range, data: data, contents: body) }
  }
  // Each copy's value, by column; the others are the template's.
  var values = [
    "key": "t.key || '\(key.contains("?") ? "&" : "?")n=' || n.i",
    "url": "NULL", "last_access": "t.last_access + n.i", "created": "t.created + n.i",
    "digest": "digest_high(t.key || '\(key.contains("?") ? "&" : "?")n=' || n.i)",
    "digest_low": "digest_low(t.key || '\(key.contains("?") ? "&" : "?")n=' || n.i)",
  ]
  if empty {
    values["size"] = "0"
    values["allocated"] = "0"
    values["sha256"] = "X'" + SHA256.empty + "'"
  }
  let select = columns.map { values[$0] ?? "t.\($0)" }.joined(separator: ", ")
  try insertCopies(
    database, columns: columns, select: select, count: count - 1, writers: writers)
}

/// Inserts `count` rows made by `select` from the template, committed only once `writers` have
/// written every file.
private func insertCopies(
  _ database: DatabaseQueue, columns: [String], select: String, count: Int, writers: Workers
) throws {
  try database.writeWithoutTransaction { db in
    db.add(
      function: DatabaseFunction("digest_high", argumentCount: 1, pure: true) {
        KeyDigest(key: String.fromDatabaseValue($0[0]) ?? "").high
      })
    db.add(
      function: DatabaseFunction("digest_low", argumentCount: 1, pure: true) {
        KeyDigest(key: String.fromDatabaseValue($0[0]) ?? "").low
      })
    try db.execute(sql: "PRAGMA cache_size = -262144")  // the indexes' pages never spill
    do {
      try db.inTransaction(.immediate) {
        // Read from a copy, so SQLite streams the rows in (it would first gather every row of
        // a SELECT that reads the table it fills).
        try db.execute(sql: "CREATE TEMP TABLE template AS SELECT * FROM entry")
        try db.execute(
          sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO entry (\(columns.joined(separator: ", ")))
            SELECT \(select) FROM n, template AS t
            """, arguments: [count])
        try db.execute(
          sql: """
            UPDATE totals SET entries = (SELECT COUNT(*) FROM entry),
              bytes = (SELECT COALESCE(SUM(size), 0) FROM entry),
              allocated = (SELECT COALESCE(SUM(allocated), 0) FROM entry) WHERE id = 1;
            DROP TABLE template
            """)
        // The rows commit only with every file written (files without rows are orphans,
        // which the next clean removes).
        guard writers.finished() else { throw CopiesError.filesNotWritten }
        return .commit
      }
    } catch {
      _ = writers.finished()
      throw error
    }
  }
}

enum CopiesError: Error, CustomStringConvertible {
  case notOneEntry, filesNotWritten, badCount
  var description: String {
    switch self {
    case .notOneEntry: "copies: the cache must hold exactly one entry, the template"
    case .filesNotWritten: "copies: a file could not be written (is the disk full?)"
    case .badCount: "copies: COUNT must be at least 1"
    }
  }
}

/// Bodies run on threads of their own; `finished` waits for all and says whether each succeeded.
final class Workers: Sendable {
  private let failures = Mutex(0)
  private let group = DispatchGroup()

  func start(_ body: @escaping @Sendable () -> Bool) {
    group.enter()
    DetachedThread.start {
      let succeeded = body()
      self.failures.withLock { $0 += succeeded ? 0 : 1 }
      self.group.leave()
    }
  }

  /// Waits for every body to end; whether all succeeded.
  func finished() -> Bool {
    group.wait()
    return failures.withLock { $0 == 0 }
  }
}
