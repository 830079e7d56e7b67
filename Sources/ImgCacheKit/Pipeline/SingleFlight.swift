import Synchronization

/// One piece of work a key at a time, in this process: the first caller of a key leads (does the
/// work, then ``finish(_:with:)``), the others follow and take the leader's value. Joining is
/// one step and waiting another (a fetch joins and submits its transfer in one step, in input
/// order, and waits later), so a finished flight's value is kept until every follower that
/// joined has taken it or left. The downloads in flight (`Fetcher.flights`) and the robots.txt
/// files being fetched (`RobotsBook`) are two of them.
///
/// A noncopyable struct, held in place by its owner, not a class: a generic class's metadata is
/// made at run time when the first is created, which cost every hit's start-up 27 K
/// instructions (docs/architecture.md, Start-up).
///
/// Lock rule: `flights` guards the table only; continuations are resumed after it is released.
struct SingleFlight<Key: Hashable & Sendable, Value: Sendable>: ~Copyable, Sendable {
  typealias Waiter = CheckedContinuation<Value?, Never>

  struct Flight {
    var waiters = [Waiter]()
    /// Followers that joined but have not asked for the value (nor left) yet.
    var joined = 0
    /// The leader's value, once it finished.
    var value: Value?
    var finished = false
  }

  private let flights = Mutex<[Key: Flight]>([:])

  /// Joins the flight of `key`; true when the caller leads it (and must call ``finish``).
  func join(_ key: Key) -> Bool {
    flights.withLock { flights in
      guard flights[key] != nil else {
        flights[key] = Flight()
        return true
      }
      flights[key]?.joined += 1
      return false
    }
  }

  /// Whether the leader of `key` is at work.
  func isLeading(_ key: Key) -> Bool {
    flights.withLock { $0[key].map { !$0.finished } ?? false }
  }

  /// The value of the flight of `key`, which the caller joined as a follower; nil when there is
  /// no such flight (its leader got a value not kept for late followers, or none is left).
  func value(of key: Key) async -> Value? {
    await withCheckedContinuation { waiter in
      let ready = flights.withLock { flights -> Value?? in
        guard var flight = flights[key] else { return .some(nil) }
        flight.joined -= 1
        guard flight.finished else {
          flight.waiters.append(waiter)
          flights[key] = flight
          return .none
        }
        flights[key] = flight.joined <= 0 ? nil : flight
        return .some(flight.value)
      }
      if case .some(let value) = ready { waiter.resume(returning: value) }
    }
  }

  /// A follower that joined will not take the value (its task was cancelled between).
  func leave(_ key: Key) {
    flights.withLock { flights in
      guard var flight = flights[key] else { return }
      flight.joined -= 1
      flights[key] = flight.finished && flight.joined <= 0 ? nil : flight
    }
  }

  /// Ends the flight of `key`, handing `value` to its waiting followers. The value is kept for
  /// those that joined and wait later unless `keptForLateFollowers` is false: then they, and
  /// every caller after, find no flight (a value meaning "nothing", which the next caller should
  /// not follow but lead anew).
  func finish(_ key: Key, with value: Value, keptForLateFollowers: Bool = true) {
    let waiters = flights.withLock { flights -> [Waiter] in
      guard var flight = flights[key] else { return [] }
      let waiters = flight.waiters
      (flight.waiters, flight.value, flight.finished) = ([], value, true)
      flights[key] = keptForLateFollowers && flight.joined > 0 ? flight : nil
      return waiters
    }
    for waiter in waiters { waiter.resume(returning: value) }
  }

  /// How many followers of `key` wait for its leader now.
  func waiting(on key: Key) -> Int {
    flights.withLock { $0[key]?.waiters.count ?? 0 }
  }
}

extension SingleFlight where Key == FlightKey, Value == FetchResult {
  /// The result of the download of `key`, which the caller joined as a follower.
  func result(of key: FlightKey) async -> FetchResult {
    if let result = await value(of: key) { return result }
    // Unreachable while every follower waits once; answer rather than hang.
    let lost = CacheError(.cancelled, "the shared download ended", url: key.url)
    return FetchResult(url: key.url, key: key.key, outcome: .failure(lost), bytes: 0)
  }
}
