import FoundationEssentials
import Glibc

/// What a ``URLSource`` has next.
public enum URLSourceItem: Sendable, Equatable {
  /// A URL.
  case url(String)
  /// A URL from a table's row, with what the row says of it (only from a table whose columns
  /// ask for more than the URL: `--verify-hash`, `--caption-col`, `--save-column`).
  case row(String, RowNotes)
  /// A line without a URL (blank, or a `#` comment), numbered from 1; only from a source
  /// that reports them (`fetch -i`, which answers every line).
  case blank(line: Int)
  /// Nothing yet (a pipe with no full line waiting): when not asked to wait, or when a wait was
  /// ended by its ``WakeSignal``.
  case notYet
  /// The end of the input (or of the wait, when the reading task was cancelled).
  case end
}

extension URLSourceItem {
  /// The URL with what its row says of it; nil for a blank line, nothing yet, or the end.
  public var listed: ListedURL? {
    switch self {
    case .url(let url): ListedURL(url)
    case .row(let url, let notes): ListedURL(url, notes: notes)
    case .blank, .notYet, .end: nil
    }
  }
}

/// The URLs of a prefetch, read by its producing task only: a URL starts as soon as its line
/// is there, and only what is already available is batched.
public protocol URLSource: AnyObject {
  /// The next URL. With `wait`, blocks until one arrives, the input ends, the calling task is
  /// cancelled, or `wake` is signalled (then answers ``URLSourceItem/notYet``: the caller has
  /// other work); without, answers ``URLSourceItem/notYet`` rather than block (a source may
  /// answer it once without asking the kernel, right after a read drained a pipe). Throws for
  /// input that cannot be read (a line too long, a read error). A source that blocks must end
  /// its wait on `wake`: a prefetch stores what finished only between reads.
  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem
}

/// How much URL input is taken at once.
public enum InputBatch {
  /// At most this many lines a batch: one lookup of the index each.
  public static let size = 256
}

extension URLSource {
  /// The next URL; with `wait`, blocks until one arrives, the input ends, or the calling task
  /// is cancelled.
  public func next(wait: Bool) throws -> URLSourceItem { try next(wait: wait, wake: nil) }

  /// What is there now, up to `limit` items: the first waited for with `wait`, the others
  /// only when already there. Ends with ``URLSourceItem/end`` when the input ended; never
  /// holds ``URLSourceItem/notYet`` (empty when the wait was woken, or without `wait` when
  /// nothing was there). The one place URL input is batched: `fetch -i`, a prefetch,
  /// `remote push`.
  public func available(
    upTo limit: Int = InputBatch.size, wait: Bool, wake: WakeSignal? = nil
  ) throws -> [URLSourceItem] {
    var items = [URLSourceItem]()
    while items.count < limit {
      let item = try next(wait: wait && items.isEmpty, wake: wake)
      if item == .notYet { break }
      items.append(item)
      if item == .end { break }
    }
    return items
  }
}

/// A pipe that becomes readable when signalled: lets a blocking read of the URL list (a
/// `poll` on its descriptor) also end when finished downloads wait to be stored.
public final class WakeSignal: Sendable {
  /// Readable while the signal is set; poll it beside the input.
  public let descriptor: Int32
  private let writer: Int32

  /// A new pipe, or nil when none can be made (then waits are not woken early).
  init?() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    (descriptor, writer) = (ends[0], ends[1])
  }

  deinit {
    close(descriptor)
    close(writer)
  }

  /// Sets the signal (a full pipe is set already).
  func signal() {
    var byte: UInt8 = 1
    _ = write(writer, &byte, 1)
  }

  /// Clears the signal.
  public func clear() {
    var bytes = (UInt64(0), UInt64(0))
    while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }
}

/// URLs from an array.
public final class URLList: URLSource {
  private var rest: IndexingIterator<[URLSourceItem]>

  /// The source of `urls`, in order.
  public convenience init(_ urls: [String]) { self.init(items: urls.map { .url($0) }) }

  /// The source of `items` (URLs, rows), in order.
  public init(items: [URLSourceItem]) { rest = items.makeIterator() }

  public func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    rest.next() ?? .end
  }
}
