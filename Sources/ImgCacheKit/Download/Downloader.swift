import CCurl
import Foundation

/// Many transfers on one libcurl multi handle, driven by one thread: at most `maxConcurrent` at
/// once (and `maxPerHost` per host), started in FIFO or LIFO order, retried with exponential
/// backoff on transient failures. Connections are reused and HTTP/2 streams multiplexed.
public final class Downloader: @unchecked Sendable {
  /// Called once per request with the response or a classified error, on the downloader's thread.
  public typealias Completion = @Sendable (Result<DownloadResponse, CacheError>) -> Void

  /// The configuration.
  public let options: TransferOptions
  private let multi: UnsafeMutableRawPointer
  private let share: UnsafeMutableRawPointer?
  private let lock = NSCondition()
  private var queued = [CurlTransfer]()
  private var delayed = [(due: Date, transfer: CurlTransfer)]()
  private var active = [UnsafeMutableRawPointer: CurlTransfer]()
  private var perHost = [String: Int]()
  private var cancelRequested = false
  private var thread: Thread?

  /// Creates a downloader; its thread starts with the first request.
  public init(options: TransferOptions = TransferOptions()) {
    Self.initializeCurl
    self.options = options
    multi = curl_multi_init()
    imgcache_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    imgcache_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, options.maxConcurrent))
    share = curl_share_init()
    if let share {
      imgcache_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
      imgcache_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
      imgcache_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
    }
  }

  deinit {
    shutdown()
    curl_multi_cleanup(multi)
    if let share { curl_share_cleanup(share) }
  }

  private static let initializeCurl: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

  /// Queues `requests` in one step (so LIFO order among them is exact); each completion is
  /// called exactly once.
  public func download(_ requests: [(DownloadRequest, Completion)]) {
    var rejected = [(Completion, CacheError)]()
    lock.lock()
    for (request, completion) in requests {
      guard
        let transfer = CurlTransfer(
          request: request, options: options, share: share, completion: { completion($0) })
      else {
        rejected.append(
          (completion, CacheError(.localIO, "\(request.url): cannot create a transfer")))
        continue
      }
      queued.append(transfer)
    }
    cancelRequested = false
    startThreadIfNeeded()
    lock.unlock()
    curl_multi_wakeup(multi)
    for (completion, error) in rejected { completion(.failure(error)) }
  }

  /// Queues one request.
  public func download(_ request: DownloadRequest, completion: @escaping Completion) {
    download([(request, completion)])
  }

  /// Cancels every queued and running transfer: their temporary files are removed and their
  /// completions get a `.cancelled` error.
  public func cancelAll() {
    lock.lock()
    cancelRequested = true
    lock.unlock()
    curl_multi_wakeup(multi)
  }

  /// Cancels everything and waits until the thread has delivered every completion and ended.
  public func shutdown() {
    lock.lock()
    guard thread != nil else {
      lock.unlock()
      return
    }
    cancelRequested = true
    lock.unlock()
    curl_multi_wakeup(multi)
    lock.lock()
    while thread != nil { lock.wait() }
    lock.unlock()
  }

  /// Starts the loop thread when none runs; called with the lock held. The thread keeps the
  /// downloader alive only while it has work.
  private func startThreadIfNeeded() {
    guard thread == nil else { return }
    let worker = Thread { self.runLoop() }
    worker.name = "imgcache.downloader"
    thread = worker
    worker.start()
  }

  // MARK: The loop (downloader thread only)

  private func runLoop() {
    var finished = [(CurlTransfer, Result<DownloadResponse, CacheError>)]()
    while true {
      lock.lock()
      if cancelRequested { finished += drainForCancel() }
      // Idle: the thread ends (so nothing keeps the downloader alive) and the next request
      // starts another; the connection cache stays with the multi handle.
      let stop = active.isEmpty && queued.isEmpty && delayed.isEmpty
      if stop { thread = nil }
      if !stop { startTransfers() }
      let nextDue = delayed.map(\.due).min()
      lock.unlock()
      deliver(&finished)
      if stop { break }
      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      let completed = collectFinished()
      finished += completed
      deliver(&finished)
      // Slots were freed: start queued transfers before sleeping.
      if !completed.isEmpty { continue }
      // Sleep until a socket is ready, a wakeup, curl's own next timer, or a retry is due.
      var curlTimeout = -1
      curl_multi_timeout(multi, &curlTimeout)
      var wait = curlTimeout >= 0 ? min(curlTimeout, 1_000) : 1_000
      if let nextDue { wait = min(wait, max(0, Int(nextDue.timeIntervalSinceNow * 1000) + 1)) }
      if wait > 0 { curl_multi_poll(multi, nil, 0, Int32(wait), nil) }
    }
    lock.lock()
    lock.broadcast()
    lock.unlock()
  }

  /// Releases the finished transfers (so their easy handles are cleaned up and a cookie jar
  /// is written) before their completions run.
  private func deliver(_ finished: inout [(CurlTransfer, Result<DownloadResponse, CacheError>)]) {
    let calls = finished.map { ($0.0.waiters, $0.1) }
    finished.removeAll()
    for (waiters, result) in calls {
      for waiter in waiters { waiter(result) }
    }
  }

  /// Moves queued transfers (and retries now due) into the multi handle, within the limits.
  private func startTransfers() {
    let now = Date()
    let due = delayed.filter { $0.due <= now }.map(\.transfer)
    delayed.removeAll { $0.due <= now }
    // Retries go first: they were started before anything still queued.
    queued.insert(contentsOf: due, at: options.order == .fifo ? 0 : queued.count)
    while active.count < max(1, options.maxConcurrent), !queued.isEmpty {
      let candidates = options.order == .fifo ? Array(queued.indices) : queued.indices.reversed()
      guard let index = candidates.first(where: { hostHasRoom(queued[$0].host) }) else { return }
      let transfer = queued.remove(at: index)
      transfer.prepareAttempt()
      active[transfer.handle] = transfer
      perHost[transfer.host, default: 0] += 1
      curl_multi_add_handle(multi, transfer.handle)
    }
  }

  private func hostHasRoom(_ host: String) -> Bool {
    options.maxPerHost <= 0 || perHost[host, default: 0] < options.maxPerHost
  }

  private func collectFinished() -> [(CurlTransfer, Result<DownloadResponse, CacheError>)] {
    var done = [(CurlTransfer, Result<DownloadResponse, CacheError>)]()
    var remaining: Int32 = 0
    while let message = curl_multi_info_read(multi, &remaining) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
        continue
      }
      let code = imgcache_msg_result(message)
      lock.lock()
      guard let transfer = active.removeValue(forKey: easy) else {
        lock.unlock()
        continue
      }
      perHost[transfer.host, default: 1] -= 1
      curl_multi_remove_handle(multi, easy)
      let result = transfer.finish(code)
      if case .failure(let error) = result, error.isTransient, transfer.attempt < options.retries,
        !cancelRequested
      {
        let delay = options.retryDelay * pow(2, Double(transfer.attempt))
        transfer.attempt += 1
        transfer.discardFile()
        delayed.append((Date().addingTimeInterval(delay), transfer))
        lock.unlock()
        continue
      }
      lock.unlock()
      done.append((transfer, result))
    }
    return done
  }

  /// Removes everything queued, delayed and running; called with the lock held.
  private func drainForCancel() -> [(CurlTransfer, Result<DownloadResponse, CacheError>)] {
    cancelRequested = false
    var cancelled = [(CurlTransfer, Result<DownloadResponse, CacheError>)]()
    for (easy, transfer) in active {
      curl_multi_remove_handle(multi, easy)
      transfer.discardFile()
      cancelled.append(
        (transfer, .failure(CacheError(.cancelled, "\(transfer.request.url): cancelled"))))
    }
    for transfer in queued + delayed.map(\.transfer) {
      transfer.discardFile()
      cancelled.append(
        (transfer, .failure(CacheError(.cancelled, "\(transfer.request.url): cancelled"))))
    }
    active.removeAll()
    perHost.removeAll()
    queued.removeAll()
    delayed.removeAll()
    return cancelled
  }
}
