import Foundation
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
  /// the hard limit allows: each transfer may hold a socket and a body file, beside the
  /// index's and the cache's own descriptors.
  static func raiseOpenFilesLimit(for transfers: Int) {
    let wanted = rlim_t(2 * min(max(1, transfers), 1_000_000) + 256)
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0,
      limit.rlim_cur < wanted
    else { return }
    limit.rlim_cur = min(wanted, limit.rlim_max)
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
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
