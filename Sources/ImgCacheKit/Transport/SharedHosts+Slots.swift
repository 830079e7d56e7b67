import Atomics
import FoundationEssentials

/// The slots of ``SharedHosts``: finding a host's, reading a time against its bound, raising
/// one, taking a rate's next start.
extension SharedHosts {
  /// A host as the table knows it: its hash (never 0) and the tag its times carry.
  struct HostKey {
    let hash: Int64
    /// Its top bit always set: a word of zeros is no host's time, and a time word is
    /// negative as an `Int64` — an older imgcache, which kept wall-clock nanoseconds in the
    /// same file, reads it as long past, never as a wait.
    var tag: Int64 { hash >> 48 & 0x7FFF | 0x8000 }
    /// Slot 0's: the overall rate.
    static let overall = HostKey(hash: 1)

    init(hash: Int64) { self.hash = hash }

    /// FNV-1a of `host`, never 0.
    init(_ host: String) {
      var value: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in host.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
      hash = Int64(bitPattern: value | 1)
    }
  }

  /// Bits of a time word that hold the time; the rest hold the tag.
  private static let timeBits: Int64 = 48
  private static let timeMask: Int64 = (1 << timeBits) - 1

  func cell(_ slot: Int, _ field: Field) -> UnsafeAtomic<Int64> {
    let cells = mapping.base.assumingMemoryBound(to: UnsafeAtomic<Int64>.Storage.self)
    return UnsafeAtomic(at: cells + slot * Self.fields + field.rawValue)
  }

  /// How far ahead of `now` the time in `word` is, if `word` is `key`'s: modulo 2⁴⁸, so any
  /// 64-bit `now` and any word give an answer, never a trap.
  private static func ahead(_ word: Int64, key: HostKey, now: Int64) -> Int64? {
    guard word >> timeBits & 0xFFFF == key.tag else { return nil }
    let difference = (word &- now) & timeMask
    // Signed, 48 bits: the upper half of the circle is behind.
    return difference >= 1 << (timeBits - 1) ? difference &- (1 << timeBits) : difference
  }

  /// The time word of `key` at `time`.
  private static func word(_ key: HostKey, at time: Int64) -> Int64 {
    key.tag << timeBits | time & timeMask
  }

  /// What a time may be ahead of its bound: one process's `now` read before another's claim
  /// is behind it by the time between (a thread preempted, a machine loaded) — a second, far
  /// less than any clock that is wrong by what matters.
  static let slack: Int64 = 1_000_000

  /// Whether `word` holds `key`'s time ahead of `now`, by at most `bound` (and the slack).
  private static func isLive(_ word: Int64, key: HostKey, now: Int64, bound: Int64) -> Int64? {
    guard let ahead = ahead(word, key: key, now: now), ahead > 0, ahead <= bound &+ slack else {
      return nil
    }
    return ahead
  }

  /// The time in `field` of `slot` when it is `key`'s and ahead of `now` by at most `bound`;
  /// else 0 (no time: past, another host's, or further ahead than its writer could mean).
  func time(_ slot: Int, _ field: Field, key: HostKey, now: Int64, bound: Int64) -> Int64 {
    let word = cell(slot, field).load(ordering: .acquiring)
    guard let ahead = Self.isLive(word, key: key, now: now, bound: bound) else {
      return 0
    }
    return now &+ ahead
  }

  /// The slot of `key`; with `claiming`, one taken for it when it has none (nil when its eight
  /// are all held by live hosts).
  func slot(of key: HostKey, now: Int64, claiming: Bool) -> Int? {
    let first = Int(truncatingIfNeeded: UInt64(bitPattern: key.hash) % UInt64(Self.slots - 1)) + 1
    let probed = (0..<Self.probes).map { (first - 1 + $0) % (Self.slots - 1) + 1 }
    for slot in probed where cell(slot, .hash).load(ordering: .acquiring) == key.hash {
      return slot
    }
    guard claiming else { return nil }
    for slot in probed {
      let holder = cell(slot, .hash).load(ordering: .acquiring)
      // Claimed for this host meanwhile, by another thread or process: one slot a host.
      if holder == key.hash { return slot }
      let owner = HostKey(hash: holder)
      let spent = [Field.paused, .refused, .nextStart].allSatisfy {
        time(slot, $0, key: owner, now: now, bound: Bounds.day) == 0
      }
      guard holder == 0 || spent else { continue }
      let (exchanged, original) = cell(slot, .hash).compareExchange(
        expected: holder, desired: key.hash, ordering: .acquiringAndReleasing)
      if exchanged || original == key.hash { return slot }
    }
    return nil
  }

  /// Raises `field` of `slot` to `value` unless `key`'s time there is later already (another
  /// host's time, or one past its bound, is no time: it is replaced).
  func raise(_ slot: Int, _ field: Field, key: HostKey, to value: Int64, now: Int64) {
    let atomic = cell(slot, field)
    let desired = Self.word(key, at: value)
    var current = atomic.load(ordering: .acquiring)
    for _ in 0..<64 {
      if let ahead = Self.isLive(current, key: key, now: now, bound: Bounds.day),
        now &+ ahead >= value
      {
        return
      }
      let (exchanged, original) = atomic.compareExchange(
        expected: current, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged { return }
      current = original
    }
  }

  /// Takes the next start of `slot`'s rate at `now`, `interval` after: false when another
  /// process took one that is not past yet (and within `interval`: one further ahead was
  /// written by a clock that is not this one's, and is replaced).
  func take(_ slot: Int, key: HostKey, after now: Int64, interval: Int64) -> Bool {
    let atomic = cell(slot, .nextStart)
    let desired = Self.word(key, at: now &+ interval)
    var current = atomic.load(ordering: .acquiring)
    for _ in 0..<64 {
      if Self.isLive(current, key: key, now: now, bound: interval) != nil { return false }
      let (exchanged, original) = atomic.compareExchange(
        expected: current, desired: desired, ordering: .acquiringAndReleasing)
      if exchanged { return true }
      current = original
    }
    return false
  }
}
