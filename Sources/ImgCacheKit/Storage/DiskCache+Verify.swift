import FoundationEssentials
import Glibc

/// What `verify` found (and, with repair, fixed): each class of problem with its count and
/// its first examples.
public struct VerifyReport: Sendable, Equatable {
  /// One class of problem.
  public typealias Problem = CountedExamples

  /// Rows checked.
  public var entries = 0
  /// Rows whose file is missing.
  public var missing = Problem()
  /// Files without a row (`data/ab/<name>`).
  public var orphans = Problem()
  /// Rows whose size or allocated size differs from the file's.
  public var sizeMismatches = Problem()
  /// Bodies that are no longer images (`full` only).
  public var notImages = Problem()
  /// Bodies whose SHA-256 differs from the recorded one (`full` only).
  public var hashMismatches = Problem()
  /// Rows with no recorded hash, which `full` could not compare (and `repair` records).
  public var unhashed = 0
  /// The running totals and the sums of the rows, when they differ.
  public var totals: (recorded: CacheTotals, actual: CacheTotals)?
  /// Links where folders of the cache belong, never entered.
  public var foreign = [String]()
  /// Whether bodies were read.
  public var full = false
  /// Whether the problems were fixed.
  public var repaired = false

  /// The number of problems found.
  public var problems: Int {
    missing.count + orphans.count + sizeMismatches.count + notImages.count
      + hashMismatches.count + (totals == nil ? 0 : 1) + foreign.count
  }

  public static func == (lhs: VerifyReport, rhs: VerifyReport) -> Bool {
    lhs.problems == rhs.problems && lhs.entries == rhs.entries && lhs.missing == rhs.missing
      && lhs.orphans == rhs.orphans && lhs.sizeMismatches == rhs.sizeMismatches
      && lhs.notImages == rhs.notImages && lhs.hashMismatches == rhs.hashMismatches
      && lhs.totals?.recorded == rhs.totals?.recorded && lhs.totals?.actual == rhs.totals?.actual
  }
}

extension DiskCache {
  /// Reconciles the index with the disk: rows without files, files without rows, sizes, and
  /// the totals; with `full`, reads every body (image check, SHA-256). With `repair`, fixes
  /// each: drops rows, deletes orphans, updates sizes, drops corrupt bodies, recomputes the
  /// totals. Takes the maintenance lock (`.busy` while a clean or clear runs); processes
  /// storing meanwhile keep working, and nothing they store is reported or touched.
  public func verify(full: Bool = false, repair: Bool = false) throws -> VerifyReport {
    try verify(full: full, repair: repair, pageSize: Self.verifyPageSize)
  }

  /// ``verify(full:repair:)`` reading a folder's rows `pageSize` at a time.
  func verify(full: Bool, repair: Bool, pageSize: Int) throws -> VerifyReport {
    var report = VerifyReport(full: full, repaired: repair)
    guard index.exists else {
      try checkIndexMatchesData()
      return report
    }
    let lock = try acquireCleanLock()
    defer { withExtendedLifetime(lock) {} }
    if repair { try checkIndexMatchesData() }
    if let data = try dataDirectory() {
      for folder in try data.names().sorted() where folder.utf8.count == 2 {
        guard case .directory(let directory) = try data.child(folder) else {
          report.foreign.append("data/" + folder)
          continue
        }
        try verify(
          folder: folder, in: directory, repair: repair, pageSize: pageSize, into: &report)
      }
    }
    if full { try verifyBodies(repair: repair, into: &report) }
    let (recorded, actual) = try index.verifyTotals(repair: repair)
    if recorded != actual { report.totals = (recorded, actual) }
    return report
  }

  /// Rows of a folder read at once by `verify`.
  static let verifyPageSize = 1_000

  /// Checks one folder in a write transaction: its rows, a page at a time in the index's order,
  /// against the files listed inside it; with `repair`, each page's rows without a file are
  /// dropped and its sizes recorded, then the orphans unlinked, in that transaction. What it
  /// holds: a page, the folder's file names not matched yet, and counts with a few examples.
  private func verify(
    folder: String, in directory: OpenDirectory, repair: Bool, pageSize: Int,
    into report: inout VerifyReport
  ) throws {
    // Counted afresh if the transaction runs again: merged into `report` once it committed.
    let found = try index.transactionIfExists(orIfMissing: VerifyReport()) { tx in
      var found = VerifyReport()
      var unmatched = Set(try directory.names())
      var after: IndexTransaction.FolderPlace?
      repeat {
        let (rows, last) = try tx.entries(inFolder: folder, after: after, limit: pageSize)
        after = last
        var findings = ShardFindings(checked: rows.count)
        for row in rows {
          let name = String(row.file.dropFirst(3))
          unmatched.remove(name)
          guard let info = directory.status(name), info.st_mode & S_IFMT == S_IFREG
          else {
            findings.missing.append(row)
            continue
          }
          let (size, allocated) = (Int64(info.st_size), Int64(info.st_blocks) * 512)
          if size != row.size || allocated != row.allocated {
            findings.resized.append((row, size, allocated))
          }
        }
        if repair {
          try tx.delete(findings.missing)
          try tx.recordSizes(findings.resized)
        }
        found.entries += findings.checked
        for entry in findings.missing { found.missing.add(entry.url) }
        for (entry, size, _) in findings.resized {
          found.sizeMismatches.add("\(entry.url) (\(entry.size) bytes recorded, \(size) on disk)")
        }
      } while after != nil
      let orphans = unmatched.sorted()
      for orphan in orphans { found.orphans.add("data/" + folder + "/" + orphan) }
      guard repair else { return found }
      for orphan in orphans { try directory.unlink(orphan) }
      try tx.increment([.orphansSwept: Int64(orphans.count)])
      return found
    }
    report.entries += found.entries
    report.missing.merge(found.missing)
    report.orphans.merge(found.orphans)
    report.sizeMismatches.merge(found.sizeMismatches)
  }

  /// Reads every body, a page of rows at a time outside any transaction; a corrupt body is
  /// dropped only if its row is still the one that was read.
  private func verifyBodies(repair: Bool, into report: inout VerifyReport) throws {
    var cursor: EntryCursor?
    var folders = ShardDirectories(data: try dataDirectory())
    repeat {
      let page = try entries(matching: EntryFilter(), order: .stored, after: cursor, limit: 500)
      cursor = page.next
      for entry in page.entries where !Task.isCancelled {
        guard let body = try Self.inspectBody(of: entry, in: &folders) else { continue }
        if entry.sha256 == nil {
          report.unhashed += 1
          if repair { try index.recordHash(body.sha256, of: entry) }
        }
        let wrongHash = entry.sha256.map { $0 != body.sha256 } ?? false
        let notImage = entry.format != nil && !body.isImage
        guard wrongHash || notImage else { continue }
        if wrongHash {
          report.hashMismatches.add(entry.url)
        } else {
          report.notImages.add(entry.url)
        }
        if repair { try dropIfUnchanged(entry) }
      }
    } while cursor != nil
  }

  /// Deletes the row of `entry` and its file, in one write transaction, when the row still
  /// describes the same body (not replaced since it was read).
  private func dropIfUnchanged(_ entry: CacheEntry) throws {
    try index.transactionIfExists(orIfMissing: ()) { tx in
      guard let row = try tx.entry(forKey: entry.key), row.file == entry.file,
        row.size == entry.size, row.sha256 == entry.sha256
      else { return }
      _ = try unlinkData([entry.file])
      try tx.delete([row])
    }
  }

  /// The SHA-256 of an entry's body and whether it is still an image; nil when the file is
  /// gone (a concurrent remove or clean) or not a regular file. The image check reads the
  /// first block hashed, and the file again only when its headers are longer.
  private static func inspectBody(of entry: CacheEntry, in folders: inout ShardDirectories)
    throws -> (sha256: String, isImage: Bool)?
  {
    guard let folder = try folders.directory(String(entry.file.prefix(2))),
      let fd = try folder.openFile(String(entry.file.dropFirst(3)))
    else { return nil }
    defer { Glibc.close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var head = [UInt8]()
    let sha256 = try SHA256.hex(readingFrom: fd) { if head.isEmpty { head = Array($0) } }
    var image = ImageSniffer.sniff(data: head)
    if image == nil && Int64(head.count) < Int64(info.st_size) {
      image = ImageSniffer.sniff(path: folder.path + "/" + entry.file.dropFirst(3))
    }
    return (sha256, image?.hasPixels ?? false)
  }
}

/// What `verify` found in one folder: rows without a file, files without a row, and rows whose
/// recorded sizes differ from their file's.
/// What one page of a folder's rows showed (``DiskCache/verify(folder:in:repair:pageSize:into:)``).
private struct ShardFindings {
  var checked = 0
  var missing = [CacheEntry]()
  var resized = [(entry: CacheEntry, size: Int64, allocated: Int64)]()
}

/// The folder directories of `data/`, each opened once (never through a link).
private struct ShardDirectories {
  let data: OpenDirectory?
  var opened = [String: OpenDirectory?]()

  init(data: OpenDirectory?) { self.data = data }

  mutating func directory(_ folder: String) throws -> OpenDirectory? {
    if let known = opened[folder] { return known }
    var found: OpenDirectory?
    if let data, case .directory(let directory) = try data.child(folder) { found = directory }
    opened[folder] = found
    return found
  }
}
