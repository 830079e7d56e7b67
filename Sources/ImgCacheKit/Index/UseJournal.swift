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
/// cache's directory may be shared): every number is checked and bounded, a time is never
/// later than the reader's clock. A taker holds the exclusive lock only to read the file and
/// empty it: a use is added at most once, and a transaction that fails after taking it loses
/// it (LRU precision, as a process killed before it wrote its uses).
package struct UseJournal: Sendable {
  /// The journal's file.
  let path: String

  /// Past this size an appender writes through the index instead (taking the journal with
  /// it), so a cache only hit, never written, keeps a small journal.
  static let appendLimit = 256 << 10
  /// A taker reads at most this much: more was not written by imgcache (``appendLimit``).
  static let readLimit = 4 << 20
  /// Uses of one key in one block, and a counter's amount, past which a block is not one
  /// imgcache wrote.
  static let maxAmount: Int64 = 1 << 32

  /// Appends `pending` as one block; false when it was not written (a counter named at run
  /// time, a journal past ``appendLimit``, a lock held, a failed write): the caller writes
  /// through the index.
  func append(_ pending: PendingWrites) -> Bool {
    guard pending.named.isEmpty, let block = Self.block(of: pending) else { return false }
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var status = stat()
    guard flock(descriptor, LOCK_SH | LOCK_NB) == 0, fstat(descriptor, &status) == 0,
      status.st_size < Self.appendLimit
    else { return false }
    var text = block
    return text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return false }
      return (try? FileIO.writeAll(descriptor, base, count: bytes.count, display: path)) != nil
    }
  }

  /// What the journal holds, read and emptied under its exclusive lock; nil when there is
  /// nothing (no journal, an empty one, a lock held by an appender: taken by a later write).
  func take(now: Date) -> PendingWrites? {
    let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
    let bytes = Self.read(descriptor)
    guard !bytes.isEmpty, ftruncate(descriptor, 0) == 0 else { return nil }
    let taken = Self.parse(bytes, now: now.timeIntervalSince1970)
    return taken.isEmpty ? nil : taken
  }

  /// Whether the journal holds anything.
  var hasContent: Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_size > 0
  }

  /// The uses the journal holds of `digests`, read without taking them: what a record shown
  /// of an entry folds in (``CacheEntry/add(_:)``).
  func uses(of digests: Set<KeyDigest>, now: Date) -> [KeyDigest: PendingWrites.Use] {
    guard !digests.isEmpty else { return [:] }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return [:] }
    defer { close(descriptor) }
    var found = [KeyDigest: PendingWrites.Use]()
    for use in Self.parse(Self.read(descriptor), now: now.timeIntervalSince1970).uses.values
    where digests.contains(use.digest) {
      found[use.digest] = use
    }
    return found
  }

  /// At most ``readLimit`` bytes from the start of `descriptor`.
  private static func read(_ descriptor: Int32) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 64 << 10)
    var count = 0
    while count < readLimit {
      if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: count)) }
      let read = bytes.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return pread(descriptor, base + count, buffer.count - count, off_t(count))
      }
      if read < 0 && errno == EINTR { continue }
      guard read > 0 else { break }
      count += read
    }
    return Array(bytes.prefix(min(count, readLimit)))
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
