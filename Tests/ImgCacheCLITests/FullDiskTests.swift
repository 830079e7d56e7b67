import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A full disk never bricks the cache (docs/design.md, A full disk): on a small tmpfs and on a
/// small ext4 of 1 KiB blocks, `clean`, `clear` and `remove` free room, kept partial bodies
/// yield to new images, reads work, and no command dies of a signal.
@Suite("imgcache on a full disk", .serialized)
struct FullDiskTests {
  let servers = TestServers.shared

  /// A folder under nginx's root: `medium1…2` (1 MiB of noise), `small1…40` (PNGs).
  private func origin() throws -> String {
    let name = "fulldisk-" + UUID().uuidString.prefix(8)
    let folder = Fixtures.directory.path + "/" + name
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func noise(_ count: Int) -> Data {
      Data(
        (0..<count).map { _ in
          state ^= state << 13
          state ^= state >> 7
          state ^= state << 17
          return UInt8(truncatingIfNeeded: state)
        })
    }
    for index in 1...2 {
      try noise(1 << 20).write(to: URL(fileURLWithPath: "\(folder)/medium\(index)"))
    }
    let png = try Data(contentsOf: URL(fileURLWithPath: Fixtures.image("base.png").path))
    for index in 1...40 { try png.write(to: URL(fileURLWithPath: "\(folder)/small\(index).png")) }
    return name
  }

  /// A small filesystem of `kind` (kept mounted while it is held), and an environment whose
  /// commands keep their cache at `cache` on it.
  private func cacheOnSmallDisk(_ kind: SmallFilesystem.Kind) throws
    -> (disk: SmallFilesystem, env: CLIEnvironment, cache: String)
  {
    let disk = try SmallFilesystem(kind)
    let env = CLIEnvironment()
    let cache = disk.path + "/cache"
    env.environment["IMGCACHE_DIR"] = cache
    return (disk, env, cache)
  }

  private func partials(_ cache: String) -> [String] {
    DirectoryListing.names(atPath: cache + "/tmp").filter { $0.hasPrefix("resume-") }
  }

  @Test(
    "clean, clear and remove free a full disk; partial bodies yield; reads work",
    arguments: SmallFilesystem.Kind.allCases)
  func fullDisk(kind: SmallFilesystem.Kind) throws {
    let (disk, env, cache) = try cacheOnSmallDisk(kind)
    let folder = try origin()
    let url = { (name: String) in servers.nginx("\(folder)/\(name)") }

    let mediums = env.run(["prefetch", "--any", url("medium1"), url("medium2")])
    #expect(mediums.status == 0, "\(mediums.stderr)")
    // Three bodies cut after 1.1 MB are kept for a resume: 3.3 MB of partial bodies.
    for index in 1...3 {
      let cut = servers.fault(
        "/resumable?id=fulldisk-\(index)-\(UUID().uuidString)&size=2000000&cut=1100000")
      #expect(env.run(["fetch", "--any", "--retry", "0", cut]).status == 4)
    }
    #expect(partials(cache).count == 3, "partial bodies kept: \(partials(cache))")

    // Full: the kept partial bodies yield to a new image.
    disk.fill()
    let small = env.run(["fetch", "--any", url("small1.png")])
    #expect(small.status == 0, "a disk of partial bodies blocked a new image: \(small.stderr)")

    // Reads work on a full disk.
    disk.fill(named: "filler2")
    for arguments in [
      ["size"], ["stats"], ["list", "--urls"], ["query", url("small1.png")], ["verify"],
      ["fetch", url("small1.png")],
    ] {
      let read = env.run(arguments)
      #expect(read.status == 0, "\(arguments[0]) on a full \(kind): \(read.stderr)")
    }

    // The cron clean frees a full disk, and the next fetch stores again.
    let clean = env.run(["clean", "--max-size", "1M"])
    #expect(clean.status == 0, "clean on a full \(kind): \(clean.stderr)")
    #expect(partials(cache).isEmpty, "clean left partial bodies on a full disk")
    let bytes = Int(
      env.run(["size", "--bytes"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(bytes.map { $0 < 1 << 20 } ?? false, "clean did not get under 1M: \(clean.stdout)")
    let after = env.run(["fetch", "--any", url("small2.png")])
    #expect(after.status == 0, "fetch after clean: \(after.stderr)")

    // remove and clear free a full disk too (of entries worth removing).
    for name in ["filler", "filler2"] { disk.remove(name) }
    let again = env.run(["prefetch", "--any", url("medium1"), url("medium2")])
    #expect(again.status == 0, "\(again.stderr)")
    disk.fill(named: "filler3")
    let removed = env.run(["remove", url("medium1")])
    #expect(removed.status == 0, "remove on a full \(kind): \(removed.stderr)")
    disk.fill(named: "filler4")
    let cleared = env.run(["clear"])
    #expect(cleared.status == 0, "clear on a full \(kind): \(cleared.stderr)")
    #expect(env.run(["size", "--bytes"]).stdout.hasPrefix("0\n"))
    #expect(env.run(["fetch", "--any", url("small3.png")]).status == 0, "fetch after clear")
  }

  /// The hosts' shared politeness (`locks/hosts`) is mapped: made sparse, the first store to
  /// one of its pages on a full disk was a SIGBUS. Its blocks are allocated first, or nothing
  /// is shared.
  @Test("a full disk never kills a download through the shared hosts file")
  func hostsFileOnFullDisk() throws {
    let (disk, env, cache) = try cacheOnSmallDisk(.ext4)
    let folder = try origin()
    #expect(env.run(["fetch", "--any", servers.nginx("\(folder)/small1.png")]).status == 0)
    unlink(cache + "/locks/hosts")
    // No room at all, the index's reserve given up too.
    unlink(cache + "/index.sqlite-reserve")
    disk.fill()
    // A rate writes the host's next start into the file at once.
    let run = env.run(
      ["fetch", "--any", "--rate-per-host", "10/s", servers.nginx("\(folder)/small2.png")])
    #expect([0, 3].contains(run.status), "status \(run.status): \(run.stderr)")
  }

  /// On 1 KiB blocks SQLite's shared memory is sparse: the first touch of a hole through its
  /// mapping on a full disk was a SIGBUS for every command, `size` included.
  @Test("no command dies of a signal when the index's shared memory cannot grow")
  func sparseSharedMemory() throws {
    let (disk, env, cache) = try cacheOnSmallDisk(.ext4)
    let folder = try origin()
    let urls = (1...20).map { servers.nginx("\(folder)/small\($0).png") }
    #expect(env.run(["prefetch", "--any"] + urls).status == 0)
    // A process that wrote and died: its WAL's frames stay, to be read into a new -shm.
    let script = """
      import os, sqlite3, sys
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.execute("CREATE TABLE scratch(x)"); db.execute("DROP TABLE scratch")
      os._exit(0)
      """
    let python = run("/usr/bin/env", ["python3", "-c", script, cache + "/index.sqlite"])
    #expect(python.status == 0, "\(python.stderr)")
    unlink(cache + "/index.sqlite-shm")
    // Room for SQLite's one byte a page of the -shm, not for the rest of its blocks.
    disk.makeFile("nine", kilobytes: 9)
    disk.fill()
    disk.remove("nine")
    for arguments in [
      ["size"], ["stats"], ["list", "--urls"], ["query", urls[0]], ["verify"], ["fetch", urls[0]],
    ] {
      let read = env.run(arguments)
      #expect(read.status == 0, "\(arguments[0]): status \(read.status), \(read.stderr)")
    }
    // No room at all, not even the reserve's: reads without shared memory.
    unlink(cache + "/index.sqlite-reserve")
    unlink(cache + "/index.sqlite-shm")
    disk.fill(named: "filler-all")
    for arguments in [["size"], ["query", urls[1]], ["fetch", urls[1]]] {
      let read = env.run(arguments)
      #expect(read.status == 0, "\(arguments[0]) with no room: \(read.status), \(read.stderr)")
    }
    // With the reserve given up and the disk full, a store fails with one line.
    disk.fill(named: "filler2")
    let store = env.run(["fetch", "--any", servers.nginx("\(folder)/medium1")])
    #expect(store.status == 3, "\(store.stderr)")
    #expect(store.stderr.lowercased().contains("no space left"), "\(store.stderr)")
    #expect(store.stderr.split(separator: "\n").count == 1, "\(store.stderr)")
  }
}
