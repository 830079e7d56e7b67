import FoundationEssentials
import Glibc
import Synchronization

extension Downloader {
  /// A downloader whose loop thread runs, held weakly, with how many of its threads run (a
  /// thread may still be ending when the next one starts).
  // @unchecked: its fields are read and written under `running`'s lock only, which the
  // compiler cannot see.
  private final class Running: @unchecked Sendable {
    // Set once, read under `running`'s lock.
    weak var downloader: Downloader?
    var threads = 0

    init(_ downloader: Downloader) { self.downloader = downloader }
  }

  /// The downloaders whose loop thread runs, for ``shutdownAll()``.
  private static let running = Mutex<[ObjectIdentifier: Running]>([:])

  /// Called by a loop thread as it starts.
  static func loopStarted(_ downloader: Downloader) {
    running.withLock { running in
      let entry = running[ObjectIdentifier(downloader)] ?? Running(downloader)
      entry.threads += 1
      running[ObjectIdentifier(downloader)] = entry
    }
  }

  /// Called by a loop thread as it ends.
  static func loopEnded(_ downloader: Downloader) {
    running.withLock { running in
      guard let entry = running[ObjectIdentifier(downloader)] else { return }
      entry.threads -= 1
      if entry.threads <= 0 { running[ObjectIdentifier(downloader)] = nil }
    }
  }

  /// Ends every loop thread of the process, their transfers cancelled, and waits for them:
  /// called before the process exits, so that no thread is inside libcurl (or OpenSSL under it)
  /// while their global state is torn down. An idle loop thread otherwise waits out its
  /// ``linger`` for new requests.
  public static func shutdownAll() {
    let all = running.withLock { $0.values.compactMap(\.downloader) }
    for downloader in all { downloader.shutdown() }
  }
}

extension Downloader {
  /// Hands every sink with transfers in flight an empty batch of results: a wake-up (more
  /// transfers are held back for their hosts, so a prefetch may admit others).
  func nudgeSinks() {
    let sinks = state.withLock { state in
      var seen = Set<ObjectIdentifier>()
      return state.sinks.values.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
    for sink in sinks { sink.receive([]) }
  }

  /// Raises the soft limit of open files, when `transfers` at once could pass it, as far as
  /// the hard limit allows: each transfer may hold a socket and a body file, and the idle
  /// connections kept for reuse (``connectionLimit(transfers:openFiles:)``) a socket each,
  /// beside the index's and the cache's own descriptors. Returns the soft limit then in force.
  @discardableResult
  static func raiseOpenFilesLimit(for transfers: Int) -> Int {
    let wanted = rlim_t(5 * min(max(1, transfers), 1_000_000) + reservedFiles)
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
      return 1_024
    }
    if limit.rlim_cur < wanted {
      let raised = min(wanted, limit.rlim_max)
      var asked = limit
      asked.rlim_cur = raised
      if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &asked) == 0 {
        limit.rlim_cur = raised
      }
    }
    return Int(clamping: limit.rlim_cur)
  }

  /// Descriptors kept for everything but transfers: the index, locks, the input, stdio.
  static let reservedFiles = 256

  /// The connections libcurl may keep open: those of `transfers` at once, and idle ones up to
  /// three times as many again, kept for the next request to their host (a list that comes
  /// back to a host reuses its connection, TLS handshake and all, instead of opening one a
  /// request) — within `openFiles`, of which each transfer also needs a body file and room
  /// for short-lived descriptors (a resolver's socket pair, a second happy-eyeballs socket).
  static func connectionLimit(transfers: Int, openFiles: Int) -> Int {
    let transfers = max(1, transfers)
    return max(transfers, min(4 * transfers, openFiles - reservedFiles - 3 * transfers))
  }
}

/// Takes the results of the transfers submitted for it (``Downloader/submit(_:into:)``)
/// several at a time: a prefetch, which advances them in batches instead of awaiting each in a
/// task of its own.
public protocol DownloadSink: AnyObject, Sendable {
  /// Receives the results of some of its transfers, by ticket; called with no lock held, on
  /// the loop thread (or, when libcurl cannot be loaded, within `submit`, before it returns
  /// the tickets); it must only hand them over (no waiting, no I/O).
  func receive(_ results: [(ticket: UInt64, result: Result<DownloadResponse, CacheError>)])
}
