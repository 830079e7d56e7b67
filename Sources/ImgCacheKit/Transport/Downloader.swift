import CCurl
import FoundationEssentials
import Glibc
import Synchronization

/// Many transfers on one libcurl multi handle, driven by one thread: at most `maxConcurrent` at
/// once (and `maxPerHost` per host), started in FIFO or LIFO order, retried with exponential
/// backoff on transient failures. Connections are reused and HTTP/2 streams multiplexed.
///
/// Callers `await` a download, or submit it into a ``DownloadSink``; the loop thread hands each
/// result back by resuming the caller's continuation, or to the sink with the other results of
/// its turn — the boundary between the C event loop and Swift concurrency. Cancelling the
/// awaiting task (or ``cancel(sink:)``) cancels a transfer and removes its temporary file.
///
/// Lock rule: `state` is locked only to move requests and cancellations in and out; the loop
/// never resumes a continuation, touches a curl handle or starts a thread while holding it.
// @unchecked: libcurl multi and share handles (C), used by the loop thread only
// (`curl_multi_wakeup` is thread-safe); the rest of its state is in a `Mutex`.
public final class Downloader: @unchecked Sendable {
  // @unchecked: `multi` and `share` are libcurl handles used only by the loop thread, except
  // curl_multi_wakeup, which libcurl documents as callable from any thread. All mutable
  // Swift state is inside `state`, a Mutex.

  /// The configuration.
  public let options: TransferOptions
  /// libcurl, or why it could not be loaded (then every request fails with that error).
  private let curl: Result<CurlLibrary, CacheError>
  private let multi: UnsafeMutableRawPointer?
  private let share: UnsafeMutableRawPointer?
  let state = Mutex(SharedState())

  typealias Continuation = CheckedContinuation<Result<DownloadResponse, CacheError>, Never>

  /// What callers and the loop thread exchange.
  struct SharedState {
    var nextID: UInt64 = 0
    /// Requests the loop has not picked up yet.
    var incoming = [(id: UInt64, request: DownloadRequest)]()
    /// Callers waiting for a result, by request.
    var waiting = [UInt64: Continuation]()
    /// Results that arrived before their caller started waiting.
    var early = [UInt64: Result<DownloadResponse, CacheError>]()
    /// Where the results of requests submitted for a sink go, by request.
    var sinks = [UInt64: any DownloadSink]()
    var cancelled = Set<UInt64>()
    var cancelEverything = false
    var threadRunning = false
    /// How many loop threads were started, for tests.
    var threadsStarted = 0
  }

  /// How many loop threads were started so far (one, for requests that keep coming within
  /// ``linger`` of each other).
  var threadsStarted: Int { state.withLock { $0.threadsStarted } }
  /// Whether a loop thread runs now.
  var isLoopRunning: Bool { state.withLock { $0.threadRunning } }

  /// How long the loop thread waits for new requests, once it has nothing to do, before it
  /// ends. A prefetch whose transfers finish faster than it hands over the next ones (small
  /// files on a near server) otherwise started a thread for each batch: 145 for 2,000 files.
  let linger: Duration
  /// Transfers the loop holds back for their hosts (``Transport/heldBack``), as of its last turn.
  let held = Atomic<Int>(0)
  /// The hosts' scheduler between two runs of the loop (one ends after `linger` idle): their
  /// pauses, windows and learned rates outlive it. The loop takes it and gives it back.
  let hosts: Mutex<HostScheduler>
  /// The cache's shared hosts file, mapped once (nil without one, or when it cannot be).
  let sharedHosts: SharedHosts?

  /// Creates a downloader; its thread starts with the first request and ends once idle for
  /// `linger`.
  public init(options: TransferOptions = TransferOptions(), linger: Duration = .milliseconds(500)) {
    self.options = options
    self.linger = linger
    hosts = Mutex(HostScheduler(HostScheduler.Limits(options)))
    sharedHosts = options.hostsFile.flatMap { SharedHosts(path: $0) }
    curl = CurlLibrary.shared
    guard case .success(let library) = curl else {
      (multi, share) = (nil, nil)
      return
    }
    let api = library.api
    multi = imgcache_multi_init(api)
    imgcache_multi_setopt_long(api, multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    // Transfers at once are the loop's to limit; connections libcurl's (docs/design.md).
    let connections = Self.connectionLimit(
      transfers: options.maxConcurrent,
      openFiles: Self.raiseOpenFilesLimit(for: options.maxConcurrent))
    imgcache_multi_setopt_long(api, multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, connections)
    imgcache_multi_setopt_long(api, multi, CURLMOPT_MAXCONNECTS, connections)
    share = imgcache_share_init(api)
    if let share {
      for data in [CURL_LOCK_DATA_DNS, CURL_LOCK_DATA_COOKIE, CURL_LOCK_DATA_SSL_SESSION] {
        imgcache_share_setopt_long(api, share, CURLSHOPT_SHARE, Int(data.rawValue))
      }
    }
  }

  deinit {
    // The loop thread holds the downloader while it runs, so it has ended here.
    guard case .success(let library) = curl else { return }
    if let multi { imgcache_multi_cleanup(library.api, multi) }
    if let share { imgcache_share_cleanup(library.api, share) }
  }

  /// Wakes the loop thread (libcurl allows this from any thread).
  private func wakeLoop() {
    if case .success(let library) = curl, let multi { imgcache_multi_wakeup(library.api, multi) }
  }

  /// Downloads `request`; the result is a response whose body file the caller owns, or a
  /// classified error. Cancelling the calling task cancels the transfer.
  public func download(_ request: DownloadRequest) async -> Result<DownloadResponse, CacheError> {
    await download([request])[0]
  }

  /// Queues `requests` in one step (so LIFO order among them is exact) and waits for all.
  public func download(_ requests: [DownloadRequest]) async
    -> [Result<DownloadResponse, CacheError>]
  {
    var results = [Result<DownloadResponse, CacheError>]()
    for ticket in submit(requests) { results.append(await result(of: ticket)) }
    return results
  }

  /// Queues `requests` at once, in their order, without waiting; returns one ticket each for
  /// ``result(of:)``. Every ticket must be awaited (a cancelled waiter cancels its transfer).
  public func submit(_ requests: [DownloadRequest]) -> [UInt64] { enqueue(requests, sink: nil) }

  /// Queues `requests` at once, in their order; their results go to `sink`, several at a time
  /// (what finished in one turn of the loop), instead of to a waiter each. Returns one ticket
  /// each; ``cancel(sink:)`` cancels them.
  public func submit(_ requests: [DownloadRequest], into sink: any DownloadSink) -> [UInt64] {
    enqueue(requests, sink: sink)
  }

  /// Cancels every transfer submitted for `sink` and not yet delivered (their temporary files
  /// are removed); their results are `.cancelled` errors, but for those the loop has already
  /// collected, which arrive with their own result. Safe from a cancellation handler: the
  /// caller's task need not run for the transfers to stop.
  public func cancel(sink: any DownloadSink) {
    let any = state.withLock { state in
      let tickets = state.sinks.compactMap { $0.value === sink ? $0.key : nil }
      state.cancelled.formUnion(tickets)
      return !tickets.isEmpty
    }
    if any { wakeLoop() }
  }

  /// Waits for the result of the request with `ticket`; cancelling the calling task cancels
  /// the transfer (its temporary file is removed) and returns a `.cancelled` error.
  public func result(of ticket: UInt64) async -> Result<DownloadResponse, CacheError> {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let early = state.withLock { state -> Result<DownloadResponse, CacheError>? in
          if let result = state.early.removeValue(forKey: ticket) { return result }
          state.waiting[ticket] = continuation
          return nil
        }
        if let early { continuation.resume(returning: early) }
      }
    } onCancel: {
      state.withLock { _ = $0.cancelled.insert(ticket) }
      wakeLoop()
    }
  }

  /// Cancels every queued and running transfer: their temporary files are removed and their
  /// callers get a `.cancelled` error.
  public func cancelAll() {
    let running = state.withLock { state in
      state.cancelEverything = state.threadRunning || !state.incoming.isEmpty
      return state.cancelEverything
    }
    if running { wakeLoop() }
  }

  /// Cancels everything and waits until the loop thread has ended (connections closed, cookie
  /// jar written).
  public func shutdown() {
    cancelAll()
    while state.withLock({ $0.threadRunning }) { usleep(1_000) }
  }

  /// Hands `requests` to the loop thread, starting it when none runs; returns their ids.
  private func enqueue(_ requests: [DownloadRequest], sink: (any DownloadSink)?) -> [UInt64] {
    if loopHandles == nil {
      // No loop can run (libcurl did not load, or its multi handle could not be made): every
      // request fails at once rather than waiting for a thread that never takes it.
      let error =
        if case .failure(let loading) = curl { loading } else {
          CacheError(.localIO, "libcurl could not start its transfers (curl_multi_init failed)")
        }
      let failed = state.withLock { state in
        requests.map { request in
          state.nextID += 1
          return (
            id: state.nextID,
            result: Result<DownloadResponse, CacheError>.failure(
              error.about(request.url))
          )
        }
      }
      if let sink {
        sink.receive(failed.map { ($0.id, $0.result) })
      } else {
        state.withLock { state in for (id, result) in failed { state.early[id] = result } }
      }
      return failed.map(\.id)
    }
    let (ids, startThread) = state.withLock { state -> ([UInt64], Bool) in
      // Read under the lock: a task's cancel flag is set before its cancellation handler runs,
      // so a handler's `cancel(sink:)` either finds these ids or this read sees the flag.
      let cancelledAlready = withUnsafeCurrentTask { $0?.isCancelled ?? false }
      let ids = requests.map { request -> UInt64 in
        state.nextID += 1
        state.incoming.append((state.nextID, request))
        if let sink { state.sinks[state.nextID] = sink }
        return state.nextID
      }
      if cancelledAlready { state.cancelled.formUnion(ids) }
      defer { state.threadRunning = true }
      if !state.threadRunning { state.threadsStarted += 1 }
      return (ids, !state.threadRunning)
    }
    if startThread {
      DetachedThread.start { [self] in DownloadLoop(downloader: self)?.run() }
    } else {
      wakeLoop()
    }
    return ids
  }

  // MARK: For the loop thread

  /// What the loop takes from callers on each turn.
  struct Turn {
    var incoming: [(id: UInt64, request: DownloadRequest)]
    var cancelled: Set<UInt64>
    var cancelEverything: Bool
  }

  /// Takes the new requests and cancellations; when `idle` and nothing new came, marks the
  /// thread as ended (the next request starts another) and returns nil.
  func takeTurn(idle: Bool) -> Turn? {
    state.withLock { state in
      if idle && state.incoming.isEmpty {
        state.threadRunning = false
        state.cancelled.removeAll()
        state.cancelEverything = false
        return nil
      }
      defer {
        state.incoming.removeAll()
        state.cancelled.removeAll()
        state.cancelEverything = false
      }
      return Turn(
        incoming: state.incoming, cancelled: state.cancelled,
        cancelEverything: state.cancelEverything)
    }
  }

  /// Hands each result to the caller of its request, or to the sink it was submitted for (all
  /// of a sink's in one call), or keeps it for a caller that has not started waiting yet. Every
  /// continuation and sink is called after the lock is released.
  func deliver(_ results: [(id: UInt64, result: Result<DownloadResponse, CacheError>)]) {
    var resumed = [(Continuation, Result<DownloadResponse, CacheError>)]()
    var sunk = [
      (sink: any DownloadSink, results: [(UInt64, Result<DownloadResponse, CacheError>)])
    ]()
    state.withLock { state in
      for (id, result) in results {
        if let sink = state.sinks.removeValue(forKey: id) {
          if let index = sunk.firstIndex(where: { $0.sink === sink }) {
            sunk[index].results.append((id, result))
          } else {
            sunk.append((sink, [(id, result)]))
          }
        } else if let waiter = state.waiting.removeValue(forKey: id) {
          resumed.append((waiter, result))
        } else {
          state.early[id] = result
        }
      }
    }
    for (waiter, result) in resumed { waiter.resume(returning: result) }
    for (sink, results) in sunk { sink.receive(results) }
  }

  /// The loop's libcurl, multi handle and share handle; the loop starts only when they exist.
  var loopHandles:
    (api: imgcache_api, multi: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer?)?
  {
    guard case .success(let library) = curl, let multi else { return nil }
    return (library.api, multi, share)
  }
}
