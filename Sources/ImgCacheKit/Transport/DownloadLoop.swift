import CCurl
import FoundationEssentials
import Glibc
import Synchronization

/// The downloader's event loop and the state only its thread touches: transfers waiting for a
/// slot, running, or waiting for a retry. Not `Sendable`: it lives and dies on that thread.
final class DownloadLoop {
  private let downloader: Downloader
  let options: TransferOptions
  private let api: imgcache_api
  private let multi: UnsafeMutableRawPointer
  private let share: UnsafeMutableRawPointer?
  private var waiting = [CurlTransfer]()
  /// Transfers waiting for a retry, due on the monotonic clock (a step of the wall clock moves
  /// nothing).
  private var delayed = [(due: ContinuousClock.Instant, transfer: CurlTransfer)]()
  private var active = [UnsafeMutableRawPointer: CurlTransfer]()
  /// Which waiting transfer may start: slots, per-host limits, pauses, windows and rates.
  var scheduler: HostScheduler
  /// Pauses and rates shared with the other processes of the cache, when it has a file.
  let shared: SharedHosts?
  /// Starts reserved from the fleet's politeness, when it has one.
  var fleet = FleetAdmissions()
  /// `--resolve`'s names, one list per host and port.
  private let resolve: ResolveLists
  /// When the scheduler next admits a transfer it holds back now (a pause or a rate).
  private var admitsAt: ContinuousClock.Instant?
  /// Results to hand back, after their transfers were released (so a handle not kept is
  /// cleaned up, and a cookie jar written, before its caller goes on).
  private var finished = [(id: UInt64, result: Result<DownloadResponse, CacheError>)]()
  /// Since when results wait in `finished` while the queue is deep (``deliverFinished()``).
  private var holdingSince: ContinuousClock.Instant?
  /// Easy handles of finished transfers, reset, for the transfers accepted next (a
  /// prefetch's window queues four a slot): a new handle cost a transfer ≈20,000 instructions
  /// more (its allocation and set-up, then its cleanup). None with a cookie jar, which libcurl
  /// writes as a handle is cleaned up.
  private var spareHandles = [UnsafeMutableRawPointer]()
  /// The most spare handles kept.
  static let spareHandleLimit = 64

  /// A loop for `downloader`; nil when it has no libcurl (it then never starts a loop).
  init?(downloader: Downloader) {
    guard let handles = downloader.loopHandles else { return nil }
    self.downloader = downloader
    options = downloader.options
    scheduler = downloader.hosts.withLock { $0 }
    (api, multi, share) = handles
    resolve = ResolveLists(downloader.options.resolve, api: handles.api)
    shared = downloader.sharedHosts
  }

  /// Whether no transfer is running, waiting for a slot or waiting for a retry.
  private var isIdle: Bool { active.isEmpty && waiting.isEmpty && delayed.isEmpty }

  /// Runs until there has been nothing to do for the downloader's `linger`, or nothing at all
  /// after a cancel of everything (``Downloader/shutdown()`` waits for that).
  package func run() {
    Downloader.loopStarted(downloader)
    defer {
      downloader.hosts.withLock { [scheduler] in $0 = scheduler }
      for handle in spareHandles { imgcache_easy_cleanup(api, handle) }
      spareHandles.removeAll()
      Downloader.loopEnded(downloader)
    }
    var idleSince: ContinuousClock.Instant?
    var ending = false
    while true {
      let now = ContinuousClock.now
      idleSince = isIdle ? (idleSince ?? now) : nil
      let lingered = idleSince.map { ending || now - $0 >= downloader.linger } ?? false
      guard let turn = downloader.takeTurn(idle: lingered) else { break }
      accept(turn.incoming)
      if turn.cancelEverything {
        ending = true
        cancel { _ in true }
      } else if !turn.cancelled.isEmpty {
        cancel { turn.cancelled.contains($0.id) }
      }
      startTransfers()
      deliverFinished()
      var running: Int32 = 0
      imgcache_multi_perform(api, multi, &running)
      let completed = collectFinished()
      deliverFinished()
      // Slots were freed: start waiting transfers before sleeping.
      if completed > 0 { continue }
      // Everything cancelled and nothing left (a shutdown): end now, not after a poll.
      if ending && isIdle { continue }
      // Sleep until a socket is ready, a wakeup, curl's own next timer, or a retry is due.
      var curlTimeout = -1
      imgcache_multi_timeout(api, multi, &curlTimeout)
      var wait = curlTimeout >= 0 ? min(curlTimeout, 1_000) : 1_000
      if let due = delayed.map(\.due).min() {
        let left = due - ContinuousClock.now
        wait = min(wait, max(0, Int((left / .milliseconds(1)).rounded(.up))))
      }
      if let admitsAt, !waiting.isEmpty {
        let left = admitsAt - ContinuousClock.now
        wait = min(wait, max(0, Int((left / .milliseconds(1)).rounded(.up))))
      }
      if let holdingSince {
        let left = Self.holdTime - (ContinuousClock.now - holdingSince)
        wait = min(wait, max(0, Int((left / .milliseconds(1)).rounded(.up))))
      }
      if let idleSince {
        let left = downloader.linger - (ContinuousClock.now - idleSince)
        wait = min(wait, max(1, Int((left / .milliseconds(1)).rounded(.up))))
      }
      if wait > 0 { imgcache_multi_poll(api, multi, Int32(wait)) }
    }
  }

  /// The most results held back while transfers wait for a slot (``deliverFinished()``).
  static let heldResults = 16
  /// The longest a result is held back.
  static let holdTime: Duration = .milliseconds(3)

  private func accept(_ incoming: [(id: UInt64, request: DownloadRequest)]) {
    for (id, request) in incoming {
      guard
        let transfer = CurlTransfer(
          id: id, request: request, options: options, api: api, share: share,
          resolve: resolve.list(for: request.url), reusing: spareHandles.popLast())
      else {
        finished.append(
          (id, .failure(CacheError(.localIO, "cannot create a transfer", url: request.url))))
        continue
      }
      // Waiting transfers stay sorted by their place in the start order, however their
      // callers' tasks happened to reach the downloader.
      let place = transfer.request.sequence ?? id
      let index = waiting.firstIndex { ($0.request.sequence ?? $0.id) > place } ?? waiting.count
      waiting.insert(transfer, at: index)
    }
  }

  /// Hands the finished results over. While at least a slot's worth of transfers still wait
  /// for a slot, the caller has work queued and need not be woken for each result: up to
  /// ``heldResults`` are held for up to ``holdTime`` and handed over together. A cold prefetch
  /// of small files woke its producer about once a file; now one wake-up takes ≈10 (context
  /// switches of 5,000 files: 5,400 → 3,000; CPU −9 %).
  private func deliverFinished() {
    guard !finished.isEmpty else { return }
    if waiting.count >= max(1, options.maxConcurrent), finished.count < Self.heldResults {
      let now = ContinuousClock.now
      let since = holdingSince ?? now
      holdingSince = since
      if now - since < Self.holdTime { return }
    }
    holdingSince = nil
    let results = finished
    finished.removeAll()
    downloader.deliver(results)
  }

  /// Moves waiting transfers (and retries now due) into the multi handle, as the scheduler
  /// admits them, in start order: one held back (its host paused, full, or ahead of its rate)
  /// is passed over, not waited for; one whose host refused fails now, without a request.
  private func startTransfers() {
    let now = ContinuousClock.now
    let due = delayed.filter { $0.due <= now }.map(\.transfer)
    delayed.removeAll { $0.due <= now }
    // Retries go first: they were started before anything still waiting.
    waiting.insert(contentsOf: due, at: options.order == .fifo ? 0 : waiting.count)
    admitsAt = nil
    var held = 0
    defer {
      // More held back: a prefetch waiting for room may start other hosts' URLs now.
      if downloader.held.exchange(held, ordering: .relaxed) < held { downloader.nudgeSinks() }
    }
    guard !waiting.isEmpty, active.count < scheduler.limits.maxConcurrent else { return }
    let instant = ContinuousClock.now
    let fifo = options.order == .fifo
    // Looked at in start order until the slots are full: a turn that frees one slot costs
    // what it passes over, not the whole queue (1,000 waiting at -j 256).
    var leaving = [Int]()
    var offset = fifo ? 0 : waiting.count - 1
    while waiting.indices.contains(offset), active.count < scheduler.limits.maxConcurrent {
      let transfer = waiting[offset]
      switch admission(for: transfer.host, now: instant) {
      case .start:
        scheduler.start(transfer.host, now: instant)
        transfer.prepareAttempt()
        active[transfer.handle] = transfer
        imgcache_multi_add_handle(api, multi, transfer.handle)
        leaving.append(offset)
      case .wait(let until):
        // Under an overall rate every host waits alike: nothing to set aside for the others.
        if scheduler.limits.rate <= 0 { held += 1 }
        if let until { admitsAt = min(admitsAt ?? until, until) }
      case .refuse(let until):
        transfer.discardFile()
        finished.append((transfer.id, .failure(refused(transfer, until: until, now: instant))))
        leaving.append(offset)
      case .abandon:
        transfer.discardFile()
        finished.append((transfer.id, .failure(abandoned(transfer))))
        leaving.append(offset)
      }
      offset += fifo ? 1 : -1
    }
    removeWaiting(at: leaving, fifo: fifo)
  }

  /// Removes the waiting transfers at `offsets`, in the order they were looked at (rising for
  /// FIFO, falling for LIFO): at the front or the back when none was passed over, the usual
  /// case, without touching the rest.
  private func removeWaiting(at offsets: [Int], fifo: Bool) {
    guard let last = offsets.last else { return }
    if fifo && last == offsets.count - 1 {
      waiting.removeFirst(offsets.count)
    } else if !fifo && last == waiting.count - offsets.count {
      waiting.removeLast(offsets.count)
    } else {
      let gone = Set(offsets)
      waiting = waiting.indices.filter { !gone.contains($0) }.map { waiting[$0] }
    }
  }

  /// Collects finished transfers; a transient failure with retries left waits for its retry.
  /// Returns how many slots were freed.
  private func collectFinished() -> Int {
    var freed = 0
    var remaining: Int32 = 0
    while let message = imgcache_multi_info_read(api, multi, &remaining) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
        let transfer = active.removeValue(forKey: easy)
      else { continue }
      freed += 1
      // The message is valid only until the handle is removed: its result first.
      let code = imgcache_msg_result(message)
      imgcache_multi_remove_handle(api, multi, easy)
      var result = transfer.finish(code)
      let now = ContinuousClock.now
      let verdict = scheduler.end(transfer.host, transfer.ending(of: result), now: now)
      if verdict != .proceed { share(transfer.host, now: now) }
      if case .refuse(let until) = verdict {
        result = .failure(refused(transfer, until: until, now: now))
      } else if verdict == .abandon {
        result = .failure(abandoned(transfer))
      } else if case .failure(let error) = result, error.isTransient,
        transfer.attempt < options.retries
      {
        transfer.attempt += 1
        transfer.discardFile()
        if verdict == .retry {
          // Throttled: it waits for its host's pause, with the host's other transfers.
          waiting.insert(transfer, at: options.order == .fifo ? 0 : waiting.count)
        } else {
          let delay = options.retryDelay * pow(2, Double(min(transfer.attempt - 1, 30)))
          delayed.append((now + .seconds(min(delay, RetryAfter.longest)), transfer))
        }
        continue
      }
      finished.append((transfer.id, result))
      if options.cookieJar == nil && spareHandles.count < Self.spareHandleLimit {
        spareHandles.append(transfer.detachHandle())
      }
    }
    return freed
  }

  /// Removes the transfers `matches` picks, wherever they are; their files are deleted.
  private func cancel(where matches: (CurlTransfer) -> Bool) {
    for (easy, transfer) in active where matches(transfer) {
      imgcache_multi_remove_handle(api, multi, easy)
      _ = scheduler.end(transfer.host, .unanswered, now: ContinuousClock.now)
      active[easy] = nil
      cancelled(transfer)
    }
    for transfer in waiting where matches(transfer) { cancelled(transfer) }
    waiting.removeAll(where: matches)
    for (_, transfer) in delayed where matches(transfer) { cancelled(transfer) }
    delayed.removeAll { matches($0.transfer) }
  }

  private func cancelled(_ transfer: CurlTransfer) {
    transfer.discardFile()
    finished.append(
      (transfer.id, .failure(CacheError(.cancelled, "cancelled", url: transfer.request.url))))
  }
}
