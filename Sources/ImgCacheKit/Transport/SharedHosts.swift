import Atomics
import CSharedMemory
import FoundationEssentials
import Glibc

/// The politeness every process of one cache shares (docs/design.md, Politeness): a host's
/// pause, its refusal and the next start its rate allows, and the next start of the overall
/// rate — kept in the cache's `hosts` file, which each process maps (``SharedMapping``); its
/// slots change only through atomic operations, so a request costs a few loads and at most two
/// compare-and-swaps, no lock and no system call.
///
/// Times are microseconds on the machine's boot clock (`CLOCK_BOOTTIME`), which every process
/// of the machine shares and no setting of the wall clock moves. The file is outside input,
/// and a writer's clock may be wrong (a time namespace, a faked clock): each time is judged by
/// the reader against the most its writer could mean — a rate's next start at most one of the
/// reader's intervals ahead, a pause at most the reader's `retry_after_max`, a refusal at most
/// a day; a time past its bound is no time. A full or damaged table only leaves a host
/// unshared, never a trap.
///
/// A slot is four 64-bit words: the host's hash (0: free), paused until, refused until, next
/// start. Each time word carries the top 16 bits of its host's hash beside 48 bits of time
/// (modulo 2⁴⁸ µs, about 8.9 years): a time written for a host whose slot was meanwhile handed
/// to another is not the new host's. Slot 0 holds the overall rate's next start. A host takes
/// the first free slot of the eight from its hash's; one whose times are all past is free to
/// take again.
package final class SharedHosts: Sendable {
  /// Slots in the file (512 KiB).
  static let slots = 16_384
  static let fields = 4
  static let probes = 8
  static var size: Int { slots * fields * MemoryLayout<Int64>.size }

  let mapping: SharedMapping

  /// Maps `path` (made, at its full size, if missing); nil when it cannot be.
  package init?(path: String) {
    guard let mapping = SharedMapping(path: path, size: Self.size) else { return nil }
    self.mapping = mapping
    prepare()
  }

  /// Slot 0's first two words: this layout's mark and the boot the times are of. A table of
  /// another layout, or of an earlier boot (its boot-clock times mean nothing now), is cleared
  /// once: under an exclusive `flock` of the file, which every process that finds the table
  /// unprepared takes, the first clears it and the others find it prepared. The kernel drops
  /// the lock of a process that dies midway; no one waits on a timer. (A process that cleared
  /// on what it read before another's mark wiped that one's claims; a bounded wait for a
  /// clearer, then a takeover, wiped them too when a loaded machine ran the clearer late.)
  private func prepare() {
    let boot = Self.bootIdentity
    if isPrepared(boot: boot) { return }
    let descriptor = open(mapping.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    if descriptor >= 0 {
      while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }
    defer {
      if descriptor >= 0 { close(descriptor) }  // the lock goes with its last descriptor
    }
    if !isPrepared(boot: boot) { clear(boot: boot) }
  }

  /// Whether the table is marked as this layout's of this boot. The boot is read first: a
  /// clearer unmarks the table before it writes the boot, and marks it last.
  private func isPrepared(boot: Int64) -> Bool {
    cell(0, .paused).load(ordering: .acquiring) == boot
      && cell(0, .hash).load(ordering: .acquiring) == Self.layoutMark
  }

  /// Empties every slot, then marks the table as this layout's of this boot.
  private func clear(boot: Int64) {
    cell(0, .hash).store(0, ordering: .releasing)
    cell(0, .paused).store(boot, ordering: .releasing)
    for slot in 0..<Self.slots {
      for field in [Field.hash, .paused, .refused, .nextStart] where slot > 0 || field == .nextStart
      {
        cell(slot, field).store(0, ordering: .releasing)
      }
    }
    cell(0, .hash).store(Self.layoutMark, ordering: .releasing)
  }

  /// The mark of this layout ("imgcache hosts, version 2").
  static let layoutMark: Int64 = 0x696D_6763_6873_7432
  /// This boot of the machine: FNV-1a of the kernel's boot id (never 0; 1 when unreadable).
  static let bootIdentity: Int64 = {
    let text = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))
    return HostKey(text ?? "").hash
  }()

  /// What the shared state says of starting a transfer.
  package enum Claim: Equatable, Sendable {
    /// Started: its rates' next starts are taken.
    case start
    /// Not before this time (microseconds, ``now()``): a rate's next start.
    case wait(until: Int64)
    /// The host is paused until this time by some process, within the reader's cap.
    case paused(until: Int64)
    /// Refused until this time: a host's wait past the reader's `retry_after_max`.
    case refuse(until: Int64)
  }

  /// What the reader means by a time in the file: its rates and its cap, in microseconds.
  package struct Bounds: Equatable, Sendable {
    /// The time between two starts to one host; nil: no rate of its own.
    package var perHost: Int64?
    /// The time between two starts over all hosts; nil: no overall rate.
    package var overall: Int64?
    /// The longest pause waited for (`retry_after_max`); a refusal past it refuses.
    package var longestPause: Int64

    /// Bounds of these rates and this cap.
    package init(perHost: Int64?, overall: Int64?, longestPause: Int64) {
      (self.perHost, self.overall) = (perHost.map { max(0, $0) }, overall.map { max(0, $0) })
      self.longestPause = min(max(0, longestPause), Self.day)
    }

    /// The longest any time of the file may be ahead: a day, the longest pause shared.
    package static let day: Int64 = 86_400_000_000
  }

  /// Field numbers of a slot.
  enum Field: Int {
    case hash = 0, paused, refused, nextStart
  }

  /// Now, in microseconds on the machine's boot clock.
  package static func now() -> Int64 { Int64(imgcache_boot_microseconds()) }

  /// Pauses `host` until `until` for every process.
  package func pause(_ host: String, until: Int64, now: Int64) {
    write(host, .paused, until: until, now: now)
  }

  /// Refuses `host` until `until` (at most a day ahead) for every process.
  package func refuse(_ host: String, until: Int64, now: Int64) {
    write(host, .refused, until: until, now: now)
  }

  /// Raises `field` of `host`'s slot to `until`; written again in the host's new slot when its
  /// slot was handed over meanwhile.
  private func write(_ host: String, _ field: Field, until: Int64, now: Int64) {
    if mapping.refresh(now: now) { prepare() }
    let key = HostKey(host)
    for _ in 0..<2 {
      guard let slot = slot(of: key, now: now, claiming: true) else { return }
      raise(slot, field, key: key, to: until, now: now)
      if cell(slot, .hash).load(ordering: .acquiring) == key.hash { return }
    }
  }

  /// Whether a transfer for `host` may start at `now`, within `bounds`: not while it is
  /// refused or paused, nor before the next start of its rate or the overall one. A start
  /// takes those next starts, atomically against every process.
  package func claim(_ host: String, now: Int64, bounds: Bounds) -> Claim {
    if mapping.refresh(now: now) { prepare() }
    let key = HostKey(host)
    // Twice at most: a rate's start taken in a slot handed to another host meanwhile is
    // taken again in the host's new slot.
    for _ in 0..<2 {
      let (claim, slot) = attempt(key, now: now, bounds: bounds)
      guard claim == .start, let slot, cell(slot, .hash).load(ordering: .acquiring) != key.hash
      else { return claim }
    }
    return .wait(until: now &+ 1)
  }

  /// One claim: its answer, and the host's slot when it took a start there.
  private func attempt(_ key: HostKey, now: Int64, bounds: Bounds) -> (Claim, Int?) {
    let slot = slot(of: key, now: now, claiming: bounds.perHost != nil)
    if let slot {
      let refused = time(slot, .refused, key: key, now: now, bound: Bounds.day)
      if refused > 0 {
        return (
          refused &- now > bounds.longestPause ? .refuse(until: refused) : .paused(until: refused),
          nil
        )
      }
      let paused = time(slot, .paused, key: key, now: now, bound: bounds.longestPause)
      if paused > 0 { return (.paused(until: paused), nil) }
      // Both next starts are looked at before either is taken: one taken for nothing would
      // hold its rate back an interval.
      if let interval = bounds.perHost {
        let own = time(slot, .nextStart, key: key, now: now, bound: interval)
        if own > 0 { return (.wait(until: own), nil) }
      }
    }
    if let interval = bounds.overall {
      let next = time(0, .nextStart, key: .overall, now: now, bound: interval)
      if next > 0 { return (.wait(until: next), nil) }
      guard take(0, key: .overall, after: now, interval: interval) else {
        return (
          .wait(
            until: max(now &+ 1, time(0, .nextStart, key: .overall, now: now, bound: interval))),
          nil
        )
      }
    }
    guard let slot, let interval = bounds.perHost else { return (.start, nil) }
    guard take(slot, key: key, after: now, interval: interval) else {
      return (
        .wait(until: max(now &+ 1, time(slot, .nextStart, key: key, now: now, bound: interval))),
        nil
      )
    }
    return (.start, slot)
  }
}
