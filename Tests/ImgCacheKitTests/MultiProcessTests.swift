import Foundation
import GRDB
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheSupport

/// The directory holding the built products (the test runner and `imgcache-stress`).
let productsDirectory: URL = {
  var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  while url.path != "/"
    && !FileManager.default.fileExists(atPath: url.appendingPathComponent("imgcache-stress").path)
  {
    url = url.deletingLastPathComponent()
  }
  return url
}()

@Suite("Several processes on one cache")
struct MultiProcessTests {
  @Test(
    "writers, readers and a cleaner at once: rows equal files, totals equal sums, tmp empty, never 'database is locked'"
  )
  func concurrentProcesses() throws {
    let directory = TemporaryDirectory()
    let tool = productsDirectory.appendingPathComponent("imgcache-stress")
    let jobs: [(String, Int)] = [
      ("write", 150), ("write", 150), ("write", 150), ("read", 400), ("read", 400), ("clean", 30),
      ("clean", 30),
    ]
    var processes = [(Process, Pipe, Pipe)]()
    for (index, job) in jobs.enumerated() {
      let process = Process()
      process.executableURL = tool
      process.arguments = [job.0, directory.path, String(job.1), String(index + 1)]
      let out = Pipe()
      let err = Pipe()
      process.standardOutput = out
      process.standardError = err
      try process.run()
      processes.append((process, out, err))
    }
    for (process, out, err) in processes {
      let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "\(process.arguments ?? []): \(stderr)")
      #expect(!stderr.contains("locked"), "\(stderr)")
      #expect(stdout.hasPrefix("ok"))
    }
    let cache = DiskCache(directory: directory.url)
    let rows = try SQLiteConnection(
      path: cache.layout.indexPath, readOnly: true, busyTimeout: 5
    )
    .rows("SELECT \(CacheEntry.selectList) FROM entry").map(CacheEntry.init(row:))
    #expect(!rows.isEmpty)
    var files = Set<String>()
    for folder in DirectoryListing.names(in: cache.layout.dataFolder) {
      for name in DirectoryListing.names(in: cache.layout.dataFolder + "/" + folder) {
        files.insert(folder + "/" + name)
      }
    }
    #expect(Set(rows.map(\.file)) == files)
    for row in rows {
      #expect(FileIO.sizes(of: cache.layout.dataPath(row.file))?.size == row.size, "\(row.file)")
    }
    let totals = try cache.totals()
    #expect(totals.entries == rows.count)
    #expect(totals.bytes == rows.reduce(0) { $0 + $1.size })
    #expect(totals.allocated == rows.reduce(0) { $0 + $1.allocated })
    #expect(DirectoryListing.names(in: cache.layout.tmpPath).isEmpty)
    // The readers' uses (recorded beside the entries) never outlive an entry removed or cleaned.
    let orphanUses = try DatabaseQueue(path: cache.layout.indexPath).read { db in
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM entry_use WHERE entry_rowid NOT IN (SELECT rowid FROM entry)"
      )
    }
    #expect(orphanUses == 0)
  }
}
