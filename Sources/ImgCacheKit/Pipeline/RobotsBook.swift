import FoundationEssentials
import Synchronization

/// The robots.txt files this process knows, by origin, and those being fetched: the first fetch
/// of an origin fetches its file (after the index, which every process of the cache shares),
/// the others of that origin wait for it (docs/design.md, Politeness). At most ``kept``
/// origins are remembered; the index holds the rest.
///
/// Lock rule: `known` guards the table only; the flights resume their waiters after their own
/// lock is released.
final class RobotsBook: Sendable {
  /// What a caller is to do for an origin.
  enum Ask: Sendable {
    /// Its file is known.
    case known(StoredRobots)
    /// Fetch it (or read the index), then ``finish(_:with:)``.
    case lead
    /// Another caller is fetching it: ``wait(for:)`` (or ``leave(_:)``).
    case follow
  }

  private let known = Mutex<[String: StoredRobots]>([:])
  /// The fetches of files under way: nil is a fetch that got nothing.
  private let fetching = SingleFlight<String, StoredRobots?>()
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
    if let robots = file(of: origin, at: time) { return .known(robots) }
    return fetching.isLeading(origin) ? .fetching : .unknown
  }

  /// What the caller is to do for `origin` at `time`. (Should a leader finish between the look
  /// and the join, the caller follows and takes the file it got, kept for the followers still to
  /// take it; a leader that got nothing keeps nothing, so the caller leads anew.)
  func ask(_ origin: String, at time: Date) -> Ask {
    if let robots = file(of: origin, at: time) { return .known(robots) }
    return fetching.join(origin) ? .lead : .follow
  }

  /// The file the leader of `origin` got; nil when it got none (cancelled).
  func wait(for origin: String) async -> StoredRobots? {
    await fetching.value(of: origin) ?? nil
  }

  /// A follower of `origin` that will not wait (cancelled): the leader's file is not kept for it.
  func leave(_ origin: String) { fetching.leave(origin) }

  /// Ends the fetch of `origin`: `robots` is remembered (nil: forgotten, to be asked again)
  /// and handed to its waiters.
  func finish(_ origin: String, with robots: StoredRobots?) {
    known.withLock { known in
      if known.count >= Self.kept {
        // Make room: the index keeps what is forgotten.
        for key in Array(known.keys.prefix(known.count - Self.kept / 2)) { known[key] = nil }
      }
      known[origin] = robots
    }
    // Nothing got (a cancel, a local failure) is not kept: the next caller fetches again.
    fetching.finish(origin, with: robots, keptForLateFollowers: robots != nil)
  }

  /// Remembers `robots` for `origin`, read from the index, unless a fetch of it is under way.
  func remember(_ origin: String, _ robots: StoredRobots) {
    guard !fetching.isLeading(origin) else { return }
    known.withLock { known in
      if known.count < Self.kept { known[origin] = robots }
    }
  }

  /// The file of `origin` known and in force at `time`.
  private func file(of origin: String, at time: Date) -> StoredRobots? {
    known.withLock { known in known[origin].flatMap { $0.expires > time ? $0 : nil } }
  }
}
