import FoundationEssentials
import Glibc
import Synchronization

/// The per-key download locks of one cache, shared by every process using it
/// (docs/design.md, Processes): open-file-description byte-range locks (`F_OFD_SETLK`) on one
/// file, `locks/keys`, one byte a key, the byte chosen by the key's MD5. No inode per key (a
/// lock file a key cost an inode to create and one to unlink, the most expensive part of a small
/// download's kernel time); the kernel drops the locks of a process that exits, even by SIGKILL,
/// so a lock is never stale. Two keys that share a byte (one chance in 2³² a pair) only wait
/// for each other.
///
/// The file is opened once per process; locks taken through one open file description do not
/// exclude each other, so the bytes this process holds are kept in `state` as well, and a byte
/// held here is busy for this process too.
///
/// Lock rule: `state` guards the descriptor and the held bytes; the `fcntl` calls run inside
/// it (system calls, no callback), so a byte is never released while another caller takes it.
package final class KeyLocks: Sendable {
  /// `locks/keys`.
  let path: String
  private let state = Mutex<State>(State())

  private struct State {
    var descriptor: Int32 = -1
    var held = Set<Int64>()
  }

  /// The locks in the file at `path` (created on first use).
  package init(path: String) { self.path = path }

  deinit {
    let descriptor = state.withLock { $0.descriptor }
    if descriptor >= 0 { close(descriptor) }
  }

  /// The byte of `key`: the first 32 bits of its MD5 (big-endian, as its hex name reads).
  static func offset(forKey key: String) -> Int64 {
    MD5.digest(of: key.utf8).prefix(4).reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }

  /// Takes `key`'s lock without waiting; nil when another process (or another download of
  /// this one) holds its byte.
  package func attempt(key: String) throws -> KeyLock? {
    try attempt(offset: Self.offset(forKey: key))
  }

  /// The byte of the key whose MD5 is `hex` (a file name in the cache names its key so).
  package static func offset(forDigest hex: Substring) -> Int64? {
    guard hex.utf8.count >= 8 else { return nil }
    return Int64(hex.prefix(8), radix: 16)
  }

  /// Takes the lock at `offset` without waiting (``attempt(key:)``).
  package func attempt(offset: Int64) throws -> KeyLock? {
    let taken = try state.withLock { state -> Bool in
      guard !state.held.contains(offset) else { return false }
      if state.descriptor < 0 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw CacheError.posix("cannot open lock file", path: path) }
        state.descriptor = fd
      }
      var request = Self.request(Int16(F_WRLCK), at: offset)
      guard fcntl(state.descriptor, Self.setLock, &request) == 0 else {
        let code = errno
        if code == EAGAIN || code == EACCES || code == EINTR { return false }
        throw CacheError.posix("cannot lock", path: path, code: code)
      }
      state.held.insert(offset)
      return true
    }
    return taken ? KeyLock(locks: self, offset: offset) : nil
  }

  /// Takes `key`'s lock, checking every 5 ms (an `await`, never a blocked thread) until
  /// `deadline`, or until `idle` passes without the holder's `progress` changing (a holder
  /// stopped by SIGSTOP or Ctrl-Z never releases, and a second download beats a hang); nil
  /// when either passes or the task is cancelled first. `progress` is read every 100 ms.
  package func wait(
    key: String, until deadline: ContinuousClock.Instant, idle: Duration,
    progress: () -> Int64
  ) async throws -> KeyLock? {
    var seen = progress()
    var idleDeadline = ContinuousClock.now + idle
    var checks = 0
    while true {
      if let lock = try attempt(key: key) { return lock }
      let now = ContinuousClock.now
      checks += 1
      if checks % 20 == 0 {
        let current = progress()
        if current != seen {
          seen = current
          idleDeadline = now + idle
        }
      }
      if now >= deadline || now >= idleDeadline || Task.isCancelled { return nil }
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  /// Releases the byte at `offset`.
  fileprivate func release(_ offset: Int64) {
    state.withLock { state in
      guard state.held.remove(offset) != nil, state.descriptor >= 0 else { return }
      var request = Self.request(Int16(F_UNLCK), at: offset)
      _ = fcntl(state.descriptor, Self.setLock, &request)
    }
  }

  /// `F_OFD_SETLK` (Linux 3.15; Glibc's module leaves the `__USE_GNU` name out).
  private static let setLock: Int32 = 37

  private static func request(_ type: Int16, at offset: Int64) -> flock {
    var request = flock()
    request.l_type = type
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(offset)
    request.l_len = 1
    request.l_pid = 0  // required for OFD locks
    return request
  }

  /// Removes the per-key lock files (`<md5>.lock`) an earlier version left under `directory`
  /// that no process holds; returns how many.
  package static func sweepLegacyFiles(_ directory: String) -> Int {
    var info = stat()
    // A real directory only: never create or unlink files through a link.
    guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return 0 }
    var removed = 0
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    where name.hasSuffix(".lock") {
      let path = directory + "/" + name
      let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
      guard fd >= 0 else { continue }
      if flock(fd, LOCK_EX | LOCK_NB) == 0 {
        unlink(path)
        removed += 1
      }
      close(fd)
    }
    return removed
  }
}

/// One key's download lock, held until ``release()`` (or until it is dropped).
package final class KeyLock: Sendable {
  private let locks: KeyLocks
  private let offset: Int64
  private let released = Atomic<Bool>(false)
  /// What else is let go with this lock (a fleet's lock on the same key).
  private let companions = Mutex<[@Sendable () -> Void]>([])

  fileprivate init(locks: KeyLocks, offset: Int64) {
    self.locks = locks
    self.offset = offset
  }

  deinit { release() }

  /// Releases the lock (once; also when the lock is dropped).
  package func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    locks.release(offset)
    // Called with no lock held: a companion may talk to a server.
    for companion in companions.withLock({ list in
      defer { list = [] }; return list
    }) {
      companion()
    }
  }

  /// Lets go of `companion` too when this lock is released.
  package func holding(_ companion: @escaping @Sendable () -> Void) {
    let late = companions.withLock { list -> Bool in
      // Appended under the same lock `release` drains it with: either it is drained, or it
      // is run here (this lock already let go).
      if released.load(ordering: .acquiring) { return true }
      list.append(companion)
      return false
    }
    if late { companion() }
  }
}
