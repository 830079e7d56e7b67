import Foundation

/// What a prefetch has in flight, and what it may start or store now: a plain value the
/// prefetch loop consults (docs/architecture.md, The prefetch loop). It holds no I/O and reads
/// no clock: the loop passes the time in. It admits jobs in input order within one window;
/// the transport's ``HostScheduler`` decides which queued transfer starts, host by host, and
/// what it holds back for a paused host is set aside from the window (``heldBack``).
struct PrefetchScheduler {
  /// Jobs transferring, in a task or being stored at once: four a transfer slot.
  let window: Int
  /// The most checked bodies stored in one transaction. A cold prefetch of small files stored
  /// each loop turn's few (about 10): every store rewrites pages of five indexes, and a
  /// transaction of 32 writes half the WAL frames a file.
  let storeBatch: Int
  /// The longest a checked body waits to be stored with others (its key's lock held).
  let storeDelay: Duration

  /// Jobs whose transfer runs, by ticket; their responses arrive in the loop's inbox.
  var transfers = [UInt64: Job]()
  /// Jobs left to tasks of their own (a lock or flight to wait for, a variant, a write-back).
  var children = 0
  /// Checked bodies waiting to be stored together, since `unstoredSince`.
  private(set) var unstored = [Job]()
  private(set) var unstoredSince: ContinuousClock.Instant
  /// Jobs in the store task (one at a time: what checks meanwhile joins the next).
  private(set) var storing = 0

  /// A scheduler for `transfers` slots of the downloader, at `now`.
  init(
    transfers slots: Int, now: ContinuousClock.Instant, storeBatch: Int = 32,
    storeDelay: Duration = .milliseconds(20)
  ) {
    window = max(4, slots * 4)
    self.storeBatch = storeBatch
    self.storeDelay = storeDelay
    unstoredSince = now
  }

  /// Whether anything is in flight: a transfer, a task, a store.
  var isBusy: Bool { !transfers.isEmpty || children > 0 || storing > 0 }

  /// Whether anything at all is left: in flight, or waiting to be stored.
  var hasWork: Bool { isBusy || !unstored.isEmpty }

  /// Transfers the transport holds back for their hosts (a pause, a rate, a host's own
  /// limit) while slots are free: they do not count against the window, up to
  /// ``maxHeldBack`` — so a paused host's queued URLs never keep the other hosts waiting.
  var heldBack = 0
  /// The most held-back transfers set aside from the window: each holds a libcurl handle.
  static let maxHeldBack = 4_096

  /// How many more jobs may start. Bodies waiting for the next store come on top, up to
  /// ``storeBatch``; past it, while a store runs, they count too (a store held up by another
  /// process's write would otherwise let them pile up).
  var room: Int {
    window + min(heldBack, Self.maxHeldBack) - transfers.count - children - storing
      - (storing > 0 ? max(0, unstored.count - storeBatch) : 0)
  }

  /// Checked bodies join those waiting to be stored.
  mutating func await(store jobs: [Job], now: ContinuousClock.Instant) {
    if unstored.isEmpty { unstoredSince = now }
    unstored += jobs
  }

  /// Whether the waiting bodies should be stored now: a batch is full, nothing else is in
  /// flight, the input has ended, or the first has waited ``storeDelay``.
  func storeIsDue(now: ContinuousClock.Instant, inputEnded: Bool) -> Bool {
    unstored.count >= storeBatch || transfers.isEmpty || inputEnded
      || unstoredSince + storeDelay <= now
  }

  /// When the loop's wait for arrivals should end to store what waits; nil when nothing
  /// waits or a store is running (its end wakes the loop).
  var storeDeadline: ContinuousClock.Instant? {
    unstored.isEmpty || storing > 0 ? nil : unstoredSince + storeDelay
  }

  /// The bodies to store in one transaction now, unless none wait or a store still runs.
  mutating func takeStore() -> [Job]? {
    guard !unstored.isEmpty, storing == 0 else { return nil }
    defer { unstored = [] }
    storing = unstored.count
    return unstored
  }

  /// The store task ended.
  mutating func storeEnded() { storing = 0 }

  /// The jobs of `open` (in input order) that may start now; they leave `open`.
  mutating func admit(_ open: inout ArraySlice<Job>) -> [Job] {
    let starting = Array(open.prefix(max(0, room)))
    open = open.dropFirst(starting.count)
    return starting
  }
}
