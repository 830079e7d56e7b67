import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Memory that stays flat as the list and the cache grow (docs/design.md, Flat memory at
/// scale): the peak resident memory of a child process, read by the kernel's accounting
/// (`getrusage` of children, through Python), on inputs ten times apart.
@Suite("imgcache in flat memory: long lists, large cleans", .serialized)
struct FlatMemoryTests {
  let env = CLIEnvironment()

  /// Runs `imgcache arguments...`, expecting exit `status`, and returns its peak resident
  /// memory in KiB.
  fileprivate func peakKiB(_ arguments: [String], status: Int32 = 0) throws -> Int {
    let script = """
      import resource, subprocess, sys
      done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
      print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
      if done.returncode < 0:  # a crash: its backtrace, for the report
          sys.stderr.write(done.stderr.decode(errors="replace")[-6000:])
      """
    let output = run(
      "/usr/bin/env", ["python3", "-c", script, imgcacheBinary] + arguments,
      environment: env.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
    let fields = output.stdout.split(separator: " ").compactMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    try #require(fields.count == 2, "\(output.stdout) \(output.stderr)")
    #expect(
      fields[0] == Int(status),
      "imgcache \(arguments.joined(separator: " ")): exit \(fields[0]) \(output.stderr)")
    return fields[1]
  }

  /// A list of `count` distinct URLs (a port nothing listens on: `--offline` never asks).
  private func list(_ count: Int) throws -> String {
    let path = env.root.path + "/list-\(count).txt"
    var text = ""
    text.reserveCapacity(count * 40)
    for index in 0..<count { text += "http://127.0.0.1:9/flat/\(index).png\n" }
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  @Test("failures stream to --save-failed: ten times as many hold the same memory")
  func failuresFlat() throws {
    var peaks = [Int]()
    for count in [50_000, 500_000] {
      let path = env.root.path + "/failing-\(count).txt"
      var text = ""
      for index in 0..<count { text += "ftp://127.0.0.1/flat/\(index).png\n" }
      try text.write(toFile: path, atomically: false, encoding: .utf8)
      let saved = env.root.path + "/retry-\(count).txt"
      peaks.append(
        try peakKiB(["prefetch", "-q", "-i", path, "--save-failed", saved], status: 2))
      let lines = try String(contentsOfFile: saved, encoding: .utf8).split(separator: "\n")
      #expect(lines.count == 2 * count, "a reason and a URL for each")
      #expect(lines.last == "ftp://127.0.0.1/flat/\(count - 1).png")
    }
    // Every failure kept with its error took ≈ 800 bytes: 360 MB more for 450,000 more.
    #expect(
      peaks[1] < peaks[0] + 6 * 1024, "peak \(peaks[0]) KiB for 50,000, \(peaks[1]) KiB for 500,000"
    )
  }

  @Test("prefetch of a list ten times longer holds the same memory (the de-duplication window)")
  func prefetchListFlat() throws {
    // Offline: each URL is an offline miss (exit 1), looked up in an empty cache.
    let short = try peakKiB(["prefetch", "--offline", "-i", try list(50_000)], status: 1)
    let long = try peakKiB(["prefetch", "--offline", "-i", try list(500_000)], status: 1)
    // Every URL seen kept in memory (the previous de-duplication) took ≈ 40 bytes a URL:
    // 18 MB more for the 450,000 more lines.
    #expect(long < short + 6 * 1024, "peak \(short) KiB for 50,000 lines, \(long) KiB for 500,000")
  }
}

extension FlatMemoryTests {
  /// A cache of `count` entries with empty files: one stored, copied by `imgcache-stress copies`.
  fileprivate func populated(_ count: Int, in folder: String) throws -> String {
    let directory = folder + "/populated-\(count)"
    let stress = URL(fileURLWithPath: imgcacheBinary).deletingLastPathComponent()
      .appendingPathComponent("imgcache-stress").path
    for (mode, number, seed) in [("populate", 1, 1), ("copies", count, 1)] {
      let made = run(stress, [mode, directory, String(number), String(seed)])
      try #require(made.status == 0, "\(made.stderr)")
    }
    return directory
  }

  @Test("clean (and its dry run) of three times the entries holds the same memory")
  func cleanFlat() throws {
    // On a tmpfs: 480,000 files are made and removed in seconds there.
    let disk = try SmallFilesystem(.tmpfs, megabytes: 1_024)
    // Both indexes outgrow the page caches (16 and 32 MiB; an entry here takes about 215
    // bytes of index): what grows after is the clean's.
    let small = try populated(160_000, in: disk.path)
    let large = try populated(480_000, in: disk.path)
    var peaks = [String: Int]()
    let runs: [(String, [String])] = [
      (" --dry-run", ["--dry-run", "--max-age", "0"]),
      // The dry run's pages, handed over one entry a line.
      (" --dry-run -v", ["--dry-run", "-v", "--max-age", "0"]),
      // The dry run's trim: the least recently used walked to below 50 entries.
      (" --dry-run (trim)", ["--dry-run", "--max-age", "never", "--max-entries", "100"]),
      ("", ["--max-age", "0"]),
    ]
    for (name, directory) in [("small", small), ("large", large)] {
      for (kind, arguments) in runs {
        peaks[name + kind] = try peakKiB(["--dir", directory, "clean"] + arguments)
      }
      let left = run(imgcacheBinary, ["--dir", directory, "size"])
      #expect(left.stdout.hasPrefix("0 entries"), "everything expired: \(left.stdout)")
    }
    // Every entry removed kept for the report took hundreds of bytes: 60 MB more for 160,000
    // (schema v8, whose index filled the page cache at 80,000 entries already).
    for (kind, _) in runs {
      let (short, long) = (peaks["small" + kind] ?? 0, peaks["large" + kind] ?? 0)
      #expect(
        long < short + 8 * 1024,
        "clean\(kind): peak \(short) KiB for 160,000 entries, \(long) KiB for 480,000")
    }
  }
}

extension FlatMemoryTests {
  @Test("clear of three times the entries holds the same memory")
  func clearFlat() throws {
    let disk = try SmallFilesystem(.tmpfs, megabytes: 1_024)
    let small = try populated(160_000, in: disk.path)
    let large = try populated(480_000, in: disk.path)
    let short = try peakKiB(["--dir", small, "clear", "-q"])
    let long = try peakKiB(["--dir", large, "clear", "-q"])
    // One DELETE of every row gathered all their rowids in memory first (the table's triggers
    // make SQLite delete in two passes): about 24 bytes an entry, 7.5 MiB more for 320,000.
    #expect(
      long < short + 4 * 1024, "clear: peak \(short) KiB for 160,000, \(long) KiB for 480,000")
    for directory in [small, large] {
      #expect(run(imgcacheBinary, ["--dir", directory, "size"]).stdout.hasPrefix("0 entries"))
    }
  }
}
