import FoundationEssentials
import Synchronization

/// The robots.txt files this process knows, by origin, and those being fetched: the first fetch
/// of an origin fetches its file (after the index, which every process of the cache shares),
/// the others of that origin wait for it (docs/design.md, Politeness). At most ``kept``
/// origins are remembered; the index holds the rest.
///
/// Lock rule: `table` guards the table only; waiters are resumed after it is released.
final class RobotsBook: Sendable {
  private typealias Waiter = CheckedContinuation<StoredRobots?, Never>

  private enum Entry {
    case known(StoredRobots)
    case fetching([Waiter])
  }

  /// What a caller is to do for an origin.
  enum Ask: Sendable {
    /// Its file is known.
    case known(StoredRobots)
    /// Fetch it (or read the index), then ``finish(_:with:)``.
    case lead
    /// Another caller is fetching it: ``wait(for:)``.
    case follow
  }

  private let table = Mutex<[String: Entry]>([:])
  /// How many origins' files are remembered.
  static let kept = 4_096

  /// What this process knows of `origin` at `time`.
  enum Knowledge {
    /// Its file, in force.
    case known(StoredRobots)
    /// Its file is being fetched.
    case fetching
    /// Nothing (or a file that expired).
    case unknown
  }

  /// What this process knows of `origin` at `time`.
  func knowledge(of origin: String, at time: Date) -> Knowledge {
    table.withLock { table in
      switch table[origin] {
      case .known(let robots) where robots.expires > time: .known(robots)
      case .fetching: .fetching
      default: .unknown
      }
    }
  }

  /// What the caller is to do for `origin` at `time`.
  func ask(_ origin: String, at time: Date) -> Ask {
    table.withLock { table in
      switch table[origin] {
      case .known(let robots) where robots.expires > time: return .known(robots)
      case .fetching: return .follow
      default:
        table[origin] = .fetching([])
        return .lead
      }
    }
  }

  /// The file the leader of `origin` got; nil when it got none (cancelled).
  func wait(for origin: String) async -> StoredRobots? {
    await withCheckedContinuation { waiter in
      let ready = table.withLock { table -> StoredRobots?? in
        switch table[origin] {
        case .fetching(var waiters):
          waiters.append(waiter)
          table[origin] = .fetching(waiters)
          return .none
        case .known(let robots): return .some(robots)
        case nil: return .some(nil)
        }
      }
      if case .some(let robots) = ready { waiter.resume(returning: robots) }
    }
  }

  /// Ends the fetch of `origin`: `robots` is remembered (nil: forgotten, to be asked again)
  /// and handed to its waiters.
  func finish(_ origin: String, with robots: StoredRobots?) {
    let waiters = table.withLock { table -> [Waiter] in
      guard case .fetching(let waiters) = table[origin] else { return [] }
      if table.count > Self.kept {
        // Make room: forget known files (the index keeps them), never a fetch in progress.
        let forgotten = table.lazy.filter { if case .known = $0.value { true } else { false } }
          .prefix(table.count - Self.kept / 2).map(\.key)
        for key in Array(forgotten) { table[key] = nil }
      }
      table[origin] = robots.map { .known($0) }
      return waiters
    }
    for waiter in waiters { waiter.resume(returning: robots) }
  }
}

extension RobotsBook {
  /// Remembers `robots` for `origin`, read from the index, unless a fetch of it is under way.
  func remember(_ origin: String, _ robots: StoredRobots) {
    table.withLock { table in
      if case .fetching = table[origin] { return }
      if table.count < Self.kept { table[origin] = .known(robots) }
    }
  }
}
