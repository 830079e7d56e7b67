import FoundationEssentials
import Glibc

/// The use journal, `$DIR/index.sqlite-uses` (docs/design.md, On disk): where a process that
/// only read the index (a `fetch` or `query --touch` hit) leaves its uses and counts when it
/// ends, with one `write` and no sync, instead of a write transaction on the index — which
/// made the WAL anew, checkpointed it and synced four times, a third of a hit's time. The
/// next write transaction of any process takes the journal whole and adds it to the index
/// (``take()``, in the same transaction as its own writes); so do `list`, `clean` and `stats`
/// before they read uses or counts.
///
/// Each process appends one block, in one `write` under a shared `flock`:
///
///     +
///     u <32 hex digits: the key's MD5> <time: seconds since 1970> <uses>
///     c <counter> <amount>
///     .
///
/// A block counts only when whole: a line feed ahead of it ends a line torn by a crash, its
/// `+` drops what a torn block left, and a block with a line that is not one of these (any
/// byte another program wrote) is dropped as a whole. The journal is outside data (the
/// cache's directory may be shared): only a regular file is opened, never waited on; a line
/// is short, every number checked and bounded, a time never later than the reader's clock.
/// A taker holds the exclusive lock from its read until its transaction ends, and empties the
/// journal only once that transaction committed: a rollback leaves it whole for the next.
package struct UseJournal: Sendable {
  /// The journal's file.
  let path: String

  /// The size a block may not take the journal past: the appender writes through the index
  /// instead (taking the journal with it), so a cache only hit keeps a small journal.
  static let appendLimit = 256 << 10
  /// A taker reads at most this much: imgcache never writes more (``appendLimit``).
  static let readLimit = 1 << 20
  /// Uses of one key in one block, and a counter's amount, past which a block is not one
  /// imgcache wrote.
  static let maxAmount: Int64 = 1 << 32

  /// Appends `pending` as one block; false when it was not written (a counter named at run
  /// time, a journal this block would take past ``appendLimit``, a lock held, a failed
  /// write): the caller writes through the index.
  func append(_ pending: PendingWrites) -> Bool {
    guard pending.named.isEmpty, let block = Self.block(of: pending) else { return false }
    let descriptor = Self.open(path, O_WRONLY | O_APPEND | O_CREAT)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var status = stat()
    guard flock(descriptor, LOCK_SH | LOCK_NB) == 0, fstat(descriptor, &status) == 0,
      Int(status.st_size) + block.utf8.count <= Self.appendLimit
    else { return false }
    var text = block
    return text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return false }
      return (try? FileIO.writeAll(descriptor, base, count: bytes.count, display: path)) != nil
    }
  }

  /// What the journal holds, read under its exclusive lock, which the ``Taken`` keeps until
  /// the caller's transaction ends; nil when there is nothing (no journal, an empty one, the
  /// lock held by appenders for longer than a few milliseconds: a later write takes it).
  func take(now: Date) -> Taken? {
    let descriptor = Self.open(path, O_RDWR)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size > 0,
      Self.momentary.take(descriptor) == .taken
    else {
      close(descriptor)
      return nil
    }
    let taken = Self.parse(Self.read(descriptor), now: now.timeIntervalSince1970)
    return Taken(descriptor: descriptor, pending: taken)
  }

  /// A journal read and still locked: emptied when the transaction that wrote it commits,
  /// left as it is when it rolls back; the lock released either way.
  final class Taken {
    private let descriptor: Int32
    /// What it held.
    let pending: PendingWrites

    fileprivate init(descriptor: Int32, pending: PendingWrites) {
      (self.descriptor, self.pending) = (descriptor, pending)
    }

    /// Ends it with its transaction.
    func end(committed: Bool) {
      if committed { _ = ftruncate(descriptor, 0) }
      _ = flock(descriptor, LOCK_UN)
    }

    deinit { close(descriptor) }
  }

  /// Whether the journal holds anything.
  var hasContent: Bool {
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
      && status.st_size > 0
  }

  /// The uses the journal holds of `digests`, read without taking them: what a record shown
  /// of an entry folds in (``CacheEntry/add(_:)``).
  func uses(of digests: Set<KeyDigest>, now: Date) -> [KeyDigest: PendingWrites.Use] {
    guard !digests.isEmpty else { return [:] }
    let descriptor = Self.open(path, O_RDONLY)
    guard descriptor >= 0 else { return [:] }
    defer { close(descriptor) }
    var found = [KeyDigest: PendingWrites.Use]()
    for use in Self.parse(Self.read(descriptor), now: now.timeIntervalSince1970).uses.values
    where digests.contains(use.digest) {
      found[use.digest] = use
    }
    return found
  }

  /// `path` opened with `flags`, when it is a regular file (a FIFO or a device there is no
  /// journal: never waited on); -1 otherwise.
  private static func open(_ path: String, _ flags: Int32) -> Int32 {
    let descriptor = Glibc.open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { return -1 }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return -1
    }
    return descriptor
  }

  /// How the exclusive lock is taken: 20 tries 250 µs apart, for appenders hold the shared
  /// one for one `write` each.
  static let momentary = MomentaryLock(tries: 20, step: 250)

  /// At most ``readLimit`` bytes from the start of `descriptor`.
  private static func read(_ descriptor: Int32) -> [UInt8] {
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return [] }
    return FileIO.bytes(descriptor, at: 0, count: min(Int(status.st_size), readLimit))
  }
}

extension Index {
  /// `entries` with the uses the use journal holds of them folded in (last access, use
  /// count), read once and not taken.
  package func foldingJournal(_ entries: [CacheEntry], now: Date) -> [CacheEntry] {
    let uses = journal.uses(of: Set(entries.map(\.digest)), now: now)
    guard !uses.isEmpty else { return entries }
    return entries.map { entry in
      guard let use = uses[entry.digest] else { return entry }
      var folded = entry
      folded.add(use)
      return folded
    }
  }
}
