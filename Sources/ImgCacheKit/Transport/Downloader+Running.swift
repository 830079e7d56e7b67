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
