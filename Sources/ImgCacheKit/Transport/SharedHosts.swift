import Atomics
import Foundation

/// The politeness every process of one cache shares (docs/design.md, Politeness): a host's
/// pause, its refusal and the next start its rate allows, and the next start of the overall
/// rate — kept in the cache's `hosts` file, which each process maps; its slots change only
/// through atomic operations, so a request costs a few loads and at most two compare-and-swaps,
/// no lock and no system call. Times are wall-clock nanoseconds (processes share no other
/// clock). The file is outside input: a value more than ``RetryAfter/longest`` ahead is read as
/// no value, and a full or damaged table only leaves a host unshared, never a trap. Its blocks
/// are allocated before it is mapped; on a disk too full for them, nothing is shared.
///
/// A slot is four `Int64`s: the host's hash (0: free), paused until, refused until, next start.
/// Slot 0 holds the overall rate's next start. A host takes the first free slot of the eight
/// from its hash's; one whose times are all past is free to take again.
// @unchecked: a mapping of shared memory, read and written only through atomics.
package final class SharedHosts: @unchecked Sendable {
  /// Slots in the file (512 KiB).
  static let slots = 16_384
  private static let fields = 4
  private static let probes = 8
  private static var size: Int { slots * fields * MemoryLayout<Int64>.size }

  private let base: UnsafeMutableRawPointer
  private let cells: UnsafeMutablePointer<UnsafeAtomic<Int64>.Storage>

  /// Maps `path` (made, at its full size, if missing); nil when it cannot be.
  package init?(path: String) {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    // Every block allocated before it is mapped: a store to a page with no block behind it
    // on a full disk is a SIGBUS, not an error (docs/design.md, A full disk).
    guard posix_fallocate(descriptor, 0, off_t(Self.size)) == 0 else { return nil }
    guard
      let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      mapped != MAP_FAILED
    else { return nil }
    base = mapped
    cells = mapped.bindMemory(
      to: UnsafeAtomic<Int64>.Storage.self, capacity: Self.slots * Self.fields)
  }

  deinit { munmap(base, Self.size) }

  /// What the shared state says of starting a transfer.
  package enum Claim: Equatable, Sendable {
    /// Started: its rates' next starts are taken.
    case start
    /// Not before this wall-clock time (nanoseconds): a rate's next start.
    case wait(until: Int64)
    /// The host is paused until this wall-clock time (nanoseconds), by some process.
    case paused(until: Int64)
    /// Refused until this wall-clock time (nanoseconds).
    case refuse(until: Int64)
  }

  private func cell(_ slot: Int, _ field: Int) -> UnsafeAtomic<Int64> {
    UnsafeAtomic(at: cells + slot * Self.fields + field)
  }

  /// A time read from the file, or 0 when it is past `now` by nothing or absurdly far ahead.
  private func time(_ slot: Int, _ field: Int, now: Int64) -> Int64 {
    let value = cell(slot, field).load(ordering: .acquiring)
    return Self.isLive(value, now: now) ? value : 0
  }

  /// Whether `value` is a time ahead of `now`, and not absurdly far.
  private static func isLive(_ value: Int64, now: Int64) -> Bool {
    let (ahead, overflow) = value.subtractingReportingOverflow(now)
    return !overflow && ahead > 0 && ahead <= farthest
  }

  /// The farthest ahead a time may be: ``RetryAfter/longest``.
  private static let farthest = Int64(RetryAfter.longest) * 1_000_000_000

  /// The slot of `host`; with `claiming`, one taken for it when it has none (nil when its eight
  /// are all held by live hosts).
  private func slot(of host: String, now: Int64, claiming: Bool) -> Int? {
    let hash = Self.hash(host)
    let first = Int(truncatingIfNeeded: hash % UInt64(Self.slots - 1)) + 1
    let probed = (0..<Self.probes).map { (first - 1 + $0) % (Self.slots - 1) + 1 }
    let tag = Int64(bitPattern: hash)
    for slot in probed where cell(slot, 0).load(ordering: .acquiring) == tag { return slot }
    guard claiming else { return nil }
    for slot in probed {
      let holder = cell(slot, 0).load(ordering: .acquiring)
      let spent = (1...3).allSatisfy { time(slot, $0, now: now) == 0 }
      guard holder == 0 || spent else { continue }
      if cell(slot, 0).compareExchange(
        expected: holder, desired: tag, ordering: .acquiringAndReleasing
      )
      .exchanged {
        return slot
      }
      if cell(slot, 0).load(ordering: .acquiring) == tag { return slot }
    }
    return nil
  }

  /// FNV-1a of `host`, never 0.
  private static func hash(_ host: String) -> UInt64 {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in host.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return value | 1
  }

  /// Raises `field` of `slot` to `value` unless it is later already (a value absurdly far
  /// ahead is no value: it is replaced).
  private func raise(_ slot: Int, _ field: Int, to value: Int64, now: Int64) {
    let atomic = cell(slot, field)
    var current = atomic.load(ordering: .acquiring)
    for _ in 0..<64 where current < value || (current > now && !Self.isLive(current, now: now)) {
      let (exchanged, original) = atomic.compareExchange(
        expected: current, desired: value, ordering: .acquiringAndReleasing)
      if exchanged { return }
      current = original
    }
  }

  /// Pauses `host` until `until` (wall-clock nanoseconds) for every process.
  package func pause(_ host: String, until: Int64, now: Int64) {
    guard let slot = slot(of: host, now: now, claiming: true) else { return }
    raise(slot, 1, to: until, now: now)
  }

  /// Refuses `host` until `until` for every process.
  package func refuse(_ host: String, until: Int64, now: Int64) {
    guard let slot = slot(of: host, now: now, claiming: true) else { return }
    raise(slot, 2, to: until, now: now)
  }

  /// Whether a transfer for `host` may start at `now`: not while it is refused or paused, nor
  /// before the next start of its rate (`perHost`, nanoseconds between starts) or the overall
  /// one (`overall`). A start takes those next starts, atomically against every process.
  package func claim(_ host: String, now: Int64, perHost: Int64?, overall: Int64?) -> Claim {
    let slot = slot(of: host, now: now, claiming: perHost != nil)
    if let slot {
      let refused = time(slot, 2, now: now)
      if refused > 0 { return .refuse(until: refused) }
      let paused = time(slot, 1, now: now)
      if paused > 0 { return .paused(until: paused) }
      // Both next starts are looked at before either is taken: one taken for nothing would
      // hold its rate back an interval.
      let own = perHost == nil ? 0 : time(slot, 3, now: now)
      if own > 0 { return .wait(until: own) }
    }
    if let overall {
      let next = time(0, 3, now: now)
      if next > 0 { return .wait(until: next) }
      guard take(0, after: now, interval: overall) else {
        return .wait(until: max(time(0, 3, now: now), now + 1))
      }
    }
    if let slot, let perHost, !take(slot, after: now, interval: perHost) {
      return .wait(until: max(time(slot, 3, now: now), now + 1))
    }
    return .start
  }

  /// Takes the next start of `slot`'s rate at `now`, `interval` after: false when another
  /// process took one that is not past yet.
  private func take(_ slot: Int, after now: Int64, interval: Int64) -> Bool {
    let atomic = cell(slot, 3)
    let (next, overflow) = now.addingReportingOverflow(max(0, interval))
    guard !overflow else { return false }
    var current = atomic.load(ordering: .acquiring)
    for _ in 0..<64 {
      if Self.isLive(current, now: now) { return false }
      let (exchanged, original) = atomic.compareExchange(
        expected: current, desired: next, ordering: .acquiringAndReleasing)
      if exchanged { return true }
      current = original
    }
    return false
  }

  /// Now, in wall-clock nanoseconds.
  package static func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
  }
}
