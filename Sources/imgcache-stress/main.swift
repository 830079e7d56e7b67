// A development tool for the multi-process tests and the benchmark: hammers one cache with
// stores, lookups, removals and cleans, or fills one with COUNT entries of 1-8 KiB, stored a
// thousand to a transaction, whose last access (and file atime) are one second apart from one
// thousand to the next. Not installed.
// Usage: imgcache-stress write|read|clean|populate DIR COUNT SEED
//        imgcache-stress copies DIR COUNT EMPTY (Copies.swift)
import FoundationEssentials
import Glibc
import ImgCacheKit
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[3]), let seed = UInt64(arguments[4]) else {
  complain(
    "usage: imgcache-stress write|read|clean|populate DIR COUNT SEED, or copies DIR COUNT EMPTY(0|1)\n"
  )
  exit(2)
}
if arguments[1] == "copies" {
  do {
    try makeCopies(in: URL(fileURLWithPath: arguments[2]), count: count, empty: seed == 1)
    exit(0)
  } catch {
    complain("error: \(error)\n")
    exit(1)
  }
}
/// The populate mode's clock: one second per entry, starting a year ago.
final class StepClock: Sendable {
  private let next = Mutex(Date().addingTimeInterval(-365 * 86_400))
  func tick() -> Date {
    next.withLock { next in
      next += 1
      return next
    }
  }
}
let clock = StepClock()
let stepped: @Sendable () -> Date = { clock.tick() }
let wall: @Sendable () -> Date = { Date() }
let cache = DiskCache(
  directory: URL(fileURLWithPath: arguments[2]), now: arguments[1] == "populate" ? stepped : wall)

func randomURL(_ generator: inout SplitMix) -> String {
  "https://stress.example/\(Int.random(in: 0..<200, using: &generator)).png"
}

/// Stores `batch` new PNG bodies of random sizes in one transaction, each file's times set
/// to its entry's last access.
func populate(_ cache: DiskCache, _ batch: Int, _ generator: inout SplitMix) throws {
  var items = [PendingStore]()
  for _ in 0..<batch {
    let (path, fd) = try cache.makeTemporaryFile()
    // A PNG header (1×1) padded to a random size, with its hash, as a download stores it.
    let header: [UInt8] = [
      0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xDE,
    ]
    let padding = Int.random(in: 1_024...8_192, using: &generator) - header.count
    let body = header + [UInt8](repeating: 0x5A, count: padding)
    _ = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    let url = "https://bench.example/\(UUID().uuidString).png"
    let metadata = EntryMetadata(
      format: .png, width: 1, height: 1, sha256: SHA256.hex(of: body))
    items.append(PendingStore(temporaryPath: path, key: url, url: url, metadata: metadata))
  }
  for result in try cache.store(items) {
    let entry = try result.get()
    let seconds = Int(entry.lastAccess.timeIntervalSince1970)
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    utimensat(AT_FDCWD, cache.layout.dataPath(entry.file), &times, 0)
  }
}

func hammer(_ cache: DiskCache, mode: String, count: Int, seed: UInt64) throws -> Int {
  var generator = SplitMix(seed: seed)
  var busy = 0
  var populated = 0
  for _ in 0..<count {
    switch mode {
    case "write":
      let url = randomURL(&generator)
      let (path, fd) = try cache.makeTemporaryFile()
      let body = [UInt8](repeating: 0x5A, count: Int.random(in: 1...20_000, using: &generator))
      _ = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
      try cache.store(path, key: url, url: url, metadata: EntryMetadata(format: .png))
      if Int.random(in: 0..<10, using: &generator) == 0 {
        try cache.remove(key: randomURL(&generator))
      }
    case "populate":
      // A batch of stores at a time, in one transaction (a prefetch's path): a million entries
      // in well under a minute on a release build.
      let batch = min(1_000, count - populated)
      guard batch > 0 else { break }
      try populate(cache, batch, &generator)
      populated += batch
    case "read":
      if let hit = try cache.lookup(key: randomURL(&generator)) {
        // The file of a hit may be removed by a cleaner right after; it must never be partial.
        if let data = FileManager.default.contents(atPath: hit.path),
          !data.allSatisfy({ $0 == 0x5A })
        {
          complain("partial or foreign body at \(hit.path)\n")
          exit(1)
        }
      }
    case "clean":
      var policy = CleanPolicy()
      policy.maxSize = 400_000
      policy.staleTemporaryAge = 3_600
      do {
        _ = try cache.clean(policy: policy)
      } catch let error as CacheError where error.kind == .busy {
        busy += 1
      }
    default:
      complain("unknown mode \(mode)\n")
      exit(2)
    }
  }
  return busy
}

do {
  let busy = try hammer(cache, mode: arguments[1], count: count, seed: seed)
  // A reader's uses wait in memory: the close writes them, as a command's end does.
  cache.close()
  print("ok busy=\(busy)")
} catch {
  complain("error: \(error)\n")
  exit(1)
}

/// Writes `text` to stderr.
func complain(_ text: String) {
  var text = text
  text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
