import CSQLite
import FoundationEssentials
import Glibc
import Synchronization

/// Room for the index on a full disk (docs/design.md, A full disk).
///
/// SQLite grows the index's shared memory (`index.sqlite-shm`) by writing one byte at the end
/// of each 4 KiB page and then maps it: on a filesystem of 1 KiB blocks the other blocks of the
/// page stay holes, and the first touch of one through the mapping on a full disk is a SIGBUS.
/// The guard installed here on SQLite's unix VFS (its `mmap` system call, through
/// `xSetSystemCall`) allocates every block of a shared, writable mapping with
/// `fallocate` before mapping it: a full disk is then an error SQLite reports
/// (`SQLITE_IOERR_SHMMAP`), never a signal.
///
/// So that reads and the commands that free room still work on a full disk, each index keeps
/// a reserve, `index.sqlite-reserve`: blocks allocated while there is room, given up when
/// shared memory cannot be allocated (by any command) or when `clean`, `clear` or `remove`
/// meets a full disk, and taken again once there is room.
package enum IndexRoom {
  /// The reserves of the indexes this process opened.
  private static let reserves = Mutex<Set<String>>([])
  /// Whether the last mapping was refused for lack of room (an `SQLITE_IOERR_SHMMAP` then
  /// means it).
  static let refusedMapping = Atomic<Bool>(false)

  /// Installs the guard on SQLite's default VFS, once, before the first connection opens.
  static let installed: Bool = {
    guard let vfs = sqlite3_vfs_find(nil), let setSystemCall = vfs.pointee.xSetSystemCall
    else { return false }
    let replacement = unsafeBitCast(guardedMap, to: sqlite3_syscall_ptr.self)
    return setSystemCall(vfs, "mmap", replacement) == SQLITE_OK
  }()

  /// Linux's `fallocate(2)` (mode 0), looked up once: glibc's `posix_fallocate` falls back on
  /// a filesystem that cannot allocate ahead to reading and writing back a byte a block, which
  /// on a mapping other processes are writing could undo their writes. Nil when absent.
  private static let fallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else {
      return nil
    }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
  }()

  /// Allocates `length` bytes of `descriptor` from `offset`, giving up the reserves once when
  /// the disk is full. Returns 0, or the `errno` of a full disk (`ENOSPC`, `EDQUOT`); a
  /// filesystem that cannot allocate ahead (`EOPNOTSUPP`) is left to SQLite's own way.
  fileprivate static func allocate(_ descriptor: Int32, offset: off_t, length: Int) -> Int32 {
    guard let fallocate else { return 0 }
    let attempt = { () -> Int32 in
      fallocate(descriptor, 0, offset, off_t(length)) == 0 ? 0 : errno
    }
    let full = { (status: Int32) in status == ENOSPC || status == EDQUOT }
    var status = attempt()
    if full(status) && releaseReserves() { status = attempt() }
    guard full(status) else {
      refusedMapping.store(false, ordering: .relaxed)
      return 0
    }
    refusedMapping.store(true, ordering: .relaxed)
    return status
  }

  /// Registers the reserve of an index, given up by ``releaseReserves()``.
  static func register(reserve path: String) {
    _ = reserves.withLock { $0.insert(path) }
  }

  /// Gives up every registered reserve; returns whether one was there.
  @discardableResult
  static func releaseReserves() -> Bool {
    let paths = reserves.withLock { $0 }
    return paths.reduce(false) { released, path in unlink(path) == 0 || released }
  }

  /// The size of the filesystem holding `path` and the bytes an unprivileged writer may still
  /// use there; nil when the system does not say.
  package static func space(at path: String) -> (total: Int64, free: Int64)? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    let blockSize = Int64(info.f_frsize)
    let total = Int64(info.f_blocks).multipliedReportingOverflow(by: blockSize)
    let free = Int64(info.f_bavail).multipliedReportingOverflow(by: blockSize)
    guard !total.overflow, !free.overflow else { return nil }
    return (total.partialValue, free.partialValue)
  }

  /// The size of the reserve on a filesystem of `total` bytes: 1/64 of it, at least 64 KiB
  /// (two regions of shared memory) and at most 1 MiB.
  package static func reserveSize(onFilesystemOf total: Int64) -> Int64 {
    min(1 << 20, max(64 << 10, total / 64))
  }

  /// Takes the reserve at `path` again when it is missing and the filesystem has room for it
  /// four times over; a reserve that cannot be allocated whole is not left half-made.
  static func keepReserve(at path: String) {
    guard access(path, F_OK) != 0,
      let space = space(at: FileIO.parent(of: path))
    else { return }
    let size = reserveSize(onFilesystemOf: space.total)
    guard space.free >= 4 * size else { return }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { return }
    if posix_fallocate(descriptor, 0, off_t(size)) != 0 { unlink(path) }
    close(descriptor)
  }
}

/// SQLite's `mmap`, with the blocks of a shared, writable mapping allocated first (``IndexRoom``).
/// Called by SQLite with its own mutexes held: it touches no lock of imgcache but the reserves'.
private let guardedMap:
  @convention(c) (UnsafeMutableRawPointer?, Int, Int32, Int32, Int32, off_t) ->
    UnsafeMutableRawPointer? = { address, length, protection, flags, descriptor, offset in
      if descriptor >= 0 && flags & MAP_SHARED != 0 && protection & PROT_WRITE != 0 {
        let status = IndexRoom.allocate(descriptor, offset: offset, length: length)
        if status != 0 {
          errno = status
          return UnsafeMutableRawPointer(bitPattern: -1)
        }
      }
      return mmap(address, length, protection, flags, descriptor, offset)
    }
