import Foundation
import Synchronization

@testable import ImgCacheKit

// The scripted URL inputs of PrefetcherTests.

/// What a ``SteadySource`` saw last: lines served, and whether the download was stored.
final class Seen: Sendable {
  let value = Mutex((lines: 0, stored: false))
}

/// Input that is always ready, as a regular file: the `first` URLs, then refused lines
/// (answered without the network, so no transfer fills the window) every 2 ms until `stored`
/// says a download is in the cache, or 2,000 lines.
final class SteadySource: URLSource {
  private let first: [String]
  private let seen: Seen
  private let stored: () -> Bool
  private var served = 0

  init(first: [String], seen: Seen, stored: @escaping () -> Bool) {
    (self.first, self.seen, self.stored) = (first, seen, stored)
  }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    served += 1
    if served <= first.count { return .url(first[served - 1]) }
    let found = stored()
    seen.value.withLock { $0 = (served, found) }
    if served > 2_000 || found { return .end }
    usleep(2_000)
    return .url("not a url \(served)")
  }
}

/// Input that waits until its reading task is cancelled (then ends), and answers the calls
/// that do not wait from a script, then `.end`.
final class ScriptedSource: URLSource {
  private var script: [URLSourceItem]

  init(_ script: [URLSourceItem]) { self.script = script }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    guard !wait else {
      for _ in 0..<500 where !Task.isCancelled { usleep(10_000) }
      return .end
    }
    return script.isEmpty ? .end : script.removeFirst()
  }
}
