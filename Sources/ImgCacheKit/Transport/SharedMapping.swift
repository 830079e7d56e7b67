import CSharedMemory
import FoundationEssentials
import Glibc
import Synchronization

/// A file every process of a cache maps, shared, at a fixed size — which another process, an
/// operator or a full disk may truncate, shrink or replace under it (docs/design.md,
/// Politeness). A load or store past a truncated file's end is a SIGBUS; here it is caught for
/// this mapping alone (`CSharedMemory`): zeroed memory takes the mapping's place, the access
/// goes on, and the next ``refresh(now:)`` maps the file again. A file shrunk or replaced is
/// found by the same call, at most once a second (one `fstat` and one `stat`). The address of
/// the mapping never changes: a new file is mapped over the old one in place.
// @unchecked: the descriptor and the time of the last look are kept under `file`'s lock; the
// memory is shared and read only through atomics by the owner.
package final class SharedMapping: @unchecked Sendable {
  /// The mapped memory, `size` bytes, valid for the object's life.
  package let base: UnsafeMutableRawPointer
  private let size: Int
  /// The file's path (a process that sets the table up locks the file at it).
  package let path: String
  private let file: Mutex<Int32>
  /// When the file was last looked at (the callers' clock, microseconds).
  private let lastLook = Atomic<Int64>(0)
  /// Whether the memory is not the file's (a fault, then a mapping again that failed): the
  /// file is mapped again at the next look, however it seems.
  private let stale = Atomic<Bool>(false)
  /// The guard's entry for this mapping: its faults are caught (-1: the table was full).
  private let guardEntry: Int32

  /// How often the file is looked at for a change: a second, in microseconds.
  private static let lookInterval: Int64 = 1_000_000

  /// Maps `path` (made, at `size`, if missing); nil when it cannot be.
  package init?(path: String, size: Int) {
    guard let descriptor = Self.open(path, size: size) else { return nil }
    guard
      let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      mapped != MAP_FAILED
    else {
      close(descriptor)
      return nil
    }
    (base, self.size, self.path) = (mapped, size, path)
    file = Mutex(descriptor)
    guardEntry = imgcache_guard_mapping(mapped, size)
  }

  deinit {
    imgcache_unguard_mapping(base)
    munmap(base, size)
    file.withLock { close($0) }
  }

  /// Opens `path` as a regular file of at least `size` bytes, every block allocated (a store
  /// to a page with no block behind it on a full disk is a SIGBUS, not an error).
  private static func open(_ path: String, size: Int) -> Int32? {
    let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { return nil }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
      posix_fallocate(descriptor, 0, off_t(size)) == 0
    else {
      close(descriptor)
      return nil
    }
    return descriptor
  }

  /// Maps the file again when the mapping faulted, or — looked at once a `lookInterval` of
  /// `now` — when the file under it is shorter than the mapping, or no longer the one at its
  /// path. Returns whether it did (the table then holds what the file holds: nothing, for a
  /// file truncated or new).
  @discardableResult
  package func refresh(now: Int64) -> Bool {
    let faulted = imgcache_mapping_faulted(guardEntry) != 0
    if faulted { stale.store(true, ordering: .releasing) }
    let last = lastLook.load(ordering: .relaxed)
    let due = now &- last >= Self.lookInterval || now < last
    guard faulted || due else { return false }
    lastLook.store(now, ordering: .relaxed)
    return file.withLock { descriptor in
      let wasStale = stale.load(ordering: .acquiring)
      guard wasStale || isChanged(descriptor) else { return false }
      guard let fresh = Self.open(path, size: size) else {
        stale.store(true, ordering: .releasing)
        return false
      }
      let mapped = mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fresh, 0)
      guard mapped != MAP_FAILED else {
        close(fresh)
        stale.store(true, ordering: .releasing)
        return false
      }
      close(descriptor)
      descriptor = fresh
      stale.store(false, ordering: .releasing)
      return true
    }
  }

  /// Whether the file open as `descriptor` is shorter than the mapping, or no longer at
  /// `path` (deleted, or another file renamed over it).
  private func isChanged(_ descriptor: Int32) -> Bool {
    var open = stat()
    var named = stat()
    guard fstat(descriptor, &open) == 0 else { return true }
    if open.st_size < size { return true }
    guard lstat(path, &named) == 0 else { return true }
    return named.st_ino != open.st_ino || named.st_dev != open.st_dev
  }
}
