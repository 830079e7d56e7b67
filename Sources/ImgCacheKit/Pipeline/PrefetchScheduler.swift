import FoundationEssentials

/// What a prefetch has in flight, and what it may start or store now: a plain value the
/// prefetch loop consults (docs/architecture.md, The prefetch loop). It holds no I/O and reads
/// no clock: the loop passes the time in. It admits fetches in input order within one window;
/// the transport's ``HostScheduler`` decides which queued transfer starts, host by host, and
/// what it holds back for a paused host is set aside from the window (``heldBack``).
struct PrefetchScheduler {
  /// Fetches transferring, in a task or being stored at once: four a transfer slot.
  let window: Int
  /// The most checked bodies stored in one transaction. A cold prefetch of small files stored
  /// each loop turn's few (about 10): every store rewrites pages of five indexes, and a
  /// transaction of 32 writes half the WAL frames a file.
  let storeBatch: Int
  /// The longest a checked body waits to be stored with others (its key's lock held).
  let storeDelay: Duration

  /// Fetches whose transfer runs, by ticket; their responses arrive in the loop's inbox.
  var transfers = [UInt64: Fetch]()
  /// Fetches left to tasks of their own (a lock or flight to wait for, a variant, a write-back).
  var children = 0
  /// Checked bodies waiting to be stored together, since `unstoredSince`.
  private(set) var unstored = [Fetch]()
  private(set) var unstoredSince: ContinuousClock.Instant
  /// Fetches in the store task (one at a time: what checks meanwhile joins the next).
  private(set) var storing = 0
  /// Fetches admitted and not ended, by host: no host has more than ``window`` (docs/design.md,
  /// Politeness): a paused host's next fetches are parked here instead of filling the window.
  private var started = [String: Int]()
  /// Fetches of hosts at their share, waiting for it, in input order by host.
  private var parked = [String: Queue]()
  private(set) var parkedCount = 0

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

  /// How many more fetches may start. Bodies waiting for the next store come on top, up to
  /// ``storeBatch``; past it, while a store runs, they count too (a store held up by another
  /// process's write would otherwise let them pile up).
  var room: Int {
    window + min(heldBack, Self.maxHeldBack) - transfers.count - children - storing
      - (storing > 0 ? max(0, unstored.count - storeBatch) : 0)
  }

  /// Checked bodies join those waiting to be stored.
  mutating func await(store fetches: [Fetch], now: ContinuousClock.Instant) {
    if unstored.isEmpty { unstoredSince = now }
    unstored += fetches
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
  mutating func takeStore() -> [Fetch]? {
    guard !unstored.isEmpty, storing == 0 else { return nil }
    defer { unstored = [] }
    storing = unstored.count
    return unstored
  }

  /// The store task ended.
  mutating func storeEnded() { storing = 0 }

  /// The fetches that may start now, in input order: first those parked for hosts that have
  /// room again, then those of `open`, which they leave (a fetch of a host with ``window`` fetches
  /// started and not ended is parked instead, while fewer than ``maxParked`` are).
  mutating func admit(_ open: inout ArraySlice<Fetch>) -> [Fetch] {
    var starting = [Fetch]()
    var room = self.room
    // Nothing in flight: no host has anything started (whatever was missed, the run goes on).
    if !hasWork {
      assert(started.isEmpty, "fetches started and never ended: \(started)")
      started.removeAll()
    }
    if parkedCount > 0 {
      for host in Array(parked.keys) where room > 0 {
        while room > 0, started[host, default: 0] < hostShare, var queue = parked[host],
          let fetch = queue.popFirst()
        {
          parked[host] = queue.isEmpty ? nil : queue
          parkedCount -= 1
          start(fetch, host: host, into: &starting, room: &room)
        }
      }
    }
    while room > 0, let fetch = open.first {
      let host = Self.host(of: fetch)
      if started[host, default: 0] >= hostShare {
        guard parkedCount < Self.maxParked else { break }
        parked[host, default: Queue()].append(fetch)
        parkedCount += 1
      } else {
        start(fetch, host: host, into: &starting, room: &room)
      }
      open = open.dropFirst()
    }
    return starting
  }

  private mutating func start(
    _ fetch: Fetch, host: String, into starting: inout [Fetch], room: inout Int
  ) {
    started[host, default: 0] += 1
    starting.append(fetch)
    room -= 1
  }

  /// The most fetches one host may have started and not ended: the window, and the bodies that
  /// wait for the next store on top (as ``room`` counts them), so a list of one host is
  /// never parked while the window has room.
  var hostShare: Int { window + storeBatch }

  /// A fetch admitted ended (settled, or its task's result came), `url` its URL.
  mutating func ended(_ url: String) {
    let host = URLText.host(of: url)
    guard let count = started[host] else { return }
    started[host] = count > 1 ? count - 1 : nil
  }

  /// Every parked fetch, taken out (a cancelled run lists them as unfinished).
  mutating func takeParked() -> [Fetch] {
    defer { (parked, parkedCount) = ([:], 0) }
    return parked.values.flatMap { $0.fetches[$0.head...] }
  }

  /// Whether fetches are parked for their hosts.
  var hasParked: Bool { parkedCount > 0 }

  /// The host a fetch's transfer goes to (as the transport's politeness names it).
  static func host(of fetch: Fetch) -> String {
    URLText.host(of: fetch.request?.stripped ?? fetch.given)
  }

  /// The most fetches parked for their hosts (each a few hundred bytes): past it, the input waits.
  static let maxParked = 65_536

  /// A host's parked fetches, in input order.
  struct Queue {
    var fetches = [Fetch]()
    var head = 0
    var isEmpty: Bool { head == fetches.count }
    mutating func append(_ fetch: Fetch) { fetches.append(fetch) }
    mutating func popFirst() -> Fetch? {
      guard head < fetches.count else { return nil }
      defer {
        head += 1
        if head == fetches.count {
          (fetches, head) = ([], 0)
        } else if head >= 1_024 && head * 2 >= fetches.count {
          // Those taken are let go (a queue that never drains would keep them all).
          fetches.removeFirst(head)
          head = 0
        }
      }
      return fetches[head]
    }
  }
}
