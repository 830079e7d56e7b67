import Foundation
import Synchronization

@testable import ImgCacheKit

// The scripted URL inputs of the prefetch tests, and a run taken to its end.

/// Blocks as a pipe's read does while nothing comes: until `wake` is set (cleared, then true:
/// the producer has other work) or the reading task is cancelled (false). Polls beside the
/// cancel flag, as the command line's input does; never a timed wait of the test's.
private func blockOnWake(_ wake: WakeSignal?) -> Bool {
  var waker = pollfd(fd: wake?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
  while !Task.isCancelled {
    if poll(&waker, 1, 10) > 0 {
      wake?.clear()
      return true
    }
  }
  return false
}

/// Whether an input has ended, for the test to read while the producer holds the input.
final class EndFlag: Sendable {
  private let value = Mutex(false)
  var isSet: Bool { value.withLock { $0 } }
  func set() { value.withLock { $0 = true } }
}

/// Input that stays open, as a pipe no one writes to after its first lines: `lines` first,
/// then nothing — a wait blocks until its wake signal is set or the reading task is cancelled
/// (then the input ends, and `ended` is set).
final class OpenSource: URLSource {
  private var lines: [String]
  private let ended: EndFlag

  init(_ lines: [String], ended: EndFlag) { (self.lines, self.ended) = (lines, ended) }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    if !lines.isEmpty { return .url(lines.removeFirst()) }
    guard wait else { return .notYet }
    if blockOnWake(wake) { return .notYet }
    ended.set()
    return .end
  }
}

/// Input that waits until its reading task is cancelled (then ends), and answers the calls
/// that do not wait from a script, then `.end`.
final class ScriptedSource: URLSource {
  private var script: [URLSourceItem]

  init(_ script: [URLSourceItem]) { self.script = script }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    guard !wait else { return blockOnWake(wake) ? .notYet : .end }
    return script.isEmpty ? .end : script.removeFirst()
  }
}

extension Prefetcher {
  /// Runs `urls` to the end; returns every event and the summary.
  func runToEnd(_ urls: [String]) async -> ([PrefetchEvent], PrefetchSummary) {
    let run = start(URLList(urls), options: FetchOptions())
    var events = [PrefetchEvent]()
    for await event in run { events.append(event) }
    return (events, await run.summary)
  }
}
