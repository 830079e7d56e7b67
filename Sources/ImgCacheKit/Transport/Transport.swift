import FoundationEssentials
import Synchronization

/// What the pipeline needs of a transport: requests in, one ticket each, results back — to a
/// waiter per ticket or, several at a time, to a ``DownloadSink``. ``Downloader`` (libcurl) is
/// the one the engine uses; tests of the pipeline give theirs (scripted responses on a test
/// clock), so the pipeline's own logic is tested without a server.
public protocol Transport: AnyObject, Sendable {
  /// Queues `requests` at once, in their order, without waiting; returns one ticket each for
  /// ``result(of:)``. Every ticket must be awaited (a cancelled waiter cancels its transfer).
  func submit(_ requests: [DownloadRequest]) -> [UInt64]
  /// Queues `requests` at once, in their order; their results go to `sink`. Returns one
  /// ticket each; ``cancel(sink:)`` cancels them.
  func submit(_ requests: [DownloadRequest], into sink: any DownloadSink) -> [UInt64]
  /// Waits for the result of the request with `ticket`; cancelling the calling task cancels
  /// the transfer and returns a `.cancelled` error.
  func result(of ticket: UInt64) async -> Result<DownloadResponse, CacheError>
  /// Cancels every transfer submitted for `sink` and not yet delivered: their results are
  /// `.cancelled` errors. Safe from a cancellation handler.
  func cancel(sink: any DownloadSink)
  /// Transfers queued and held back for their host while slots are free (a paused host, one
  /// at its own limit or ahead of its rate): a prefetch does not count them against its
  /// window, so the other hosts keep the slots busy.
  var heldBack: Int { get }
}

extension Transport {
  /// None: a transport without per-host politeness holds nothing back.
  public var heldBack: Int { 0 }
}

extension Downloader: Transport {
  public var heldBack: Int { held.load(ordering: .relaxed) }
}
