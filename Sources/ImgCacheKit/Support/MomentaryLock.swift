import Glibc

/// Taking an exclusive `flock(2)` that others hold for a moment only, without waiting on it:
/// how many tries, how far apart, and when to give up (docs/design.md, On disk: the use
/// journal). This plain value decides; ``take(_:)`` performs its decisions.
package struct MomentaryLock: Sendable, Equatable {
  /// What follows a try that failed.
  package enum Action: Sendable, Equatable {
    /// Try again after this many microseconds.
    case retry(afterMicroseconds: UInt32)
    /// Held all along: give up (the holder is doing more than a moment's work).
    case busy
    /// Not a held lock: the error (an `errno`).
    case failed(Int32)
  }

  /// How a take ended.
  package enum Outcome: Sendable, Equatable {
    /// The lock is held by the caller's descriptor.
    case taken
    /// Another held it through every try.
    case busy
    /// A try failed otherwise: the `errno`.
    case failed(Int32)
  }

  /// The most tries.
  package let tries: Int
  /// The wait between two tries, in microseconds.
  package let step: UInt32

  /// At most `tries` tries (at least one), `step` microseconds apart.
  package init(tries: Int, step: UInt32) {
    self.tries = max(1, tries)
    self.step = step
  }

  /// What to do after try number `made` (from 1) failed with `code`: a held lock (or an
  /// interrupted try) is tried again until the tries are spent; any other error ends it.
  package func next(afterTry made: Int, failedWith code: Int32) -> Action {
    guard code == EWOULDBLOCK || code == EINTR else { return .failed(code) }
    return made < tries ? .retry(afterMicroseconds: step) : .busy
  }

  /// Takes the exclusive lock on `descriptor` as this value decides.
  package func take(_ descriptor: Int32) -> Outcome {
    var made = 0
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      made += 1
      switch next(afterTry: made, failedWith: errno) {
      case .retry(let wait): usleep(wait)
      case .busy: return .busy
      case .failed(let code): return .failed(code)
      }
    }
    return .taken
  }
}
