/// What a ``URLSource`` has next.
public enum URLSourceItem: Sendable, Equatable {
  /// A URL.
  case url(String)
  /// A line without a URL (blank, or a `#` comment), numbered from 1; only from a source
  /// that reports them (`fetch -i`, which answers every line).
  case blank(line: Int)
  /// Nothing yet (a pipe with no full line waiting); only when not asked to wait.
  case notYet
  /// The end of the input (or of the wait, when the reading task was cancelled).
  case end
}

/// The URLs of a prefetch, read by its producing task only: a URL starts as soon as its line
/// is there, and only what is already available is batched.
public protocol URLSource: AnyObject {
  /// The next URL. With `wait`, blocks until one arrives, the input ends, or the calling task
  /// is cancelled; without, answers ``URLSourceItem/notYet`` rather than block. Throws for
  /// input that cannot be read (a line too long, a read error).
  func next(wait: Bool) throws -> URLSourceItem
}

/// URLs from an array.
public final class URLList: URLSource {
  private var rest: IndexingIterator<[String]>

  /// The source of `urls`, in order.
  public init(_ urls: [String]) { rest = urls.makeIterator() }

  public func next(wait: Bool) throws -> URLSourceItem { rest.next().map { .url($0) } ?? .end }
}
