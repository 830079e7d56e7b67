import Foundation
import ImgCacheTestSupport
import Testing

/// A small filesystem of its own for one test (tests run as root): a tmpfs, or an ext4 image
/// of 1 KiB blocks (what `mkfs.ext4` picks below 512 MiB) on a loop device. Unmounted when
/// dropped. Where one cannot be made, the test is cancelled with the reason (shown as
/// skipped), never passed.
final class SmallFilesystem: @unchecked Sendable {
  enum Kind: String, CaseIterable, Sendable {
    case tmpfs
    case ext4
  }

  let kind: Kind
  /// Where it is mounted.
  let path: String
  private let work = TemporaryDirectory("imgcache-smallfs")
  private var mounted = false

  init(_ kind: Kind, megabytes: Int = 8) throws {
    self.kind = kind
    path = work.path + "/mnt"
    // IMGCACHE_TEST_NO_MOUNT=1 takes the path of a machine that cannot mount (to check it).
    if ProcessInfo.processInfo.environment["IMGCACHE_TEST_NO_MOUNT"] == "1" {
      try Test.cancel("cannot mount a \(kind.rawValue): IMGCACHE_TEST_NO_MOUNT is set")
    }
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
    var outcome: ProcessOutput
    switch kind {
    case .tmpfs:
      outcome = run(
        "/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path],
        environment: environment)
    case .ext4:
      let image = work.path + "/ext4.img"
      outcome = run(
        "/usr/bin/env", ["truncate", "-s", "\(megabytes)M", image], environment: environment)
      if outcome.status == 0 {
        outcome = run(
          "/usr/bin/env", ["mkfs.ext4", "-q", "-F", "-b", "1024", image],
          environment: environment)
      }
      if outcome.status == 0 {
        outcome = run(
          "/usr/bin/env", ["mount", "-o", "loop", image, path], environment: environment)
      }
    }
    guard outcome.status == 0 else {
      let reason =
        "cannot mount a \(megabytes) MiB \(kind.rawValue) (needs root and, for ext4, a loop "
        + "device): \(outcome.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
      try Test.cancel(Comment(rawValue: reason))
    }
    mounted = true
  }

  deinit {
    if mounted {
      _ = run("/usr/bin/env", ["umount", "-l", path], environment: ["PATH": "/usr/bin:/bin"])
    }
  }

  /// Blocks free for root (`f_bfree`).
  var freeBlocks: Int {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return 0 }
    return Int(info.f_bfree)
  }

  /// Bytes free for anyone (`f_bavail`).
  var availableBytes: Int {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return 0 }
    return Int(info.f_bavail) * Int(info.f_frsize)
  }

  /// Fills the filesystem with a file of zeros, outside the cache, until a write fails.
  func fill(named name: String = "filler") {
    let descriptor = open(path + "/" + name, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let chunk = [UInt8](repeating: 0, count: 1024)
    while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    fsync(descriptor)
  }

  /// Writes a file of `kilobytes` zeros (to free that many blocks later by removing it).
  func makeFile(_ name: String, kilobytes: Int) {
    _ = FileManager.default.createFile(
      atPath: path + "/" + name, contents: Data(repeating: 0, count: kilobytes * 1024))
    syncFilesystem()
  }

  /// Removes a file made by ``makeFile(_:kilobytes:)`` or ``fill(named:)``.
  func remove(_ name: String) {
    unlink(path + "/" + name)
    syncFilesystem()
  }

  /// Commits this filesystem's journal (an fsync of its root folder), so that its free
  /// blocks are counted right; a global `sync` would stall every other test's writes.
  private func syncFilesystem() {
    let descriptor = open(path, O_RDONLY | O_DIRECTORY)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
  }
}
