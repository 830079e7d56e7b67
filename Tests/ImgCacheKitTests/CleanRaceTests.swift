import Dispatch
import Foundation
import ImgCacheTestSupport
import Synchronization
import Testing

@testable import ImgCacheKit

/// What the cleaner's thread saw: whether the writer has finished, and every row a clean
/// dropped as missing its file or file it removed as having no row.
private final class Observed: Sendable {
  let finished = Atomic<Bool>(false)
  let mismatches = Mutex<[String]>([])
}

@Suite("clean beside a writer of the same cache")
struct CleanRaceTests {
  let directory = TemporaryDirectory()

  @Test(
    "the orphan sweep lists a shard inside its transaction: a file stored meanwhile keeps its row")
  func sweepDuringStores() throws {
    // Two cache objects on one directory: two connections, as two processes would have.
    let writer = DiskCache(directory: directory.url)
    let cleaner = DiskCache(directory: directory.url)
    // Few keys, stored and removed in turn: their files keep appearing and disappearing.
    let keys = (0..<4).map { CacheKey.key(for: "https://race.example/\($0).png") }
    _ = try store(writer, keys[0])
    let observed = Observed()
    let cleans = DispatchGroup()
    DispatchQueue.global().async(group: cleans) {
      // No limits: nothing expires or is trimmed; only rows and files are matched. Every file
      // is placed and every row written in one transaction, so a sweep finds nothing to mend.
      var policy = CleanPolicy()
      policy.maxAge = -1
      for _ in 0..<5_000 where !observed.finished.load(ordering: .acquiring) {
        guard let report = try? cleaner.clean(policy: policy) else { continue }
        let found =
          report.missingFiles.examples.map { "missing \($0)" } + report.orphanFiles.examples
        if !found.isEmpty { observed.mismatches.withLock { $0 += found } }
      }
    }
    for round in 0..<1_500 {
      let key = keys[(round / 2) % keys.count]
      if round % 2 == 1 { _ = try writer.remove(key: key) } else { _ = try store(writer, key) }
    }
    observed.finished.store(true, ordering: .releasing)
    cleans.wait()
    #expect(observed.mismatches.withLock { $0 }.isEmpty)
    let rows = try writer.entries(matching: EntryFilter(), order: .stored).entries
    #expect(try writer.totals().entries == rows.count)
    writer.close()
    cleaner.close()
  }
}
