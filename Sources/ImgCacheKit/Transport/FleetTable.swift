/// A machine's view of the fleet's politeness (docs/fleet.md, Politeness), as a plain value
/// with no I/O and no clock (time is passed in): the pauses it heard of, and the starts it
/// reserved ahead under each host's rate. The download loop asks it for each start and never
/// waits on the fleet: an answer it does not have yet is a ``Fetch`` for its owner to perform
/// off the loop, whose reply comes back as an event (``received(_:waits:paused:now:)``,
/// ``heard(_:wait:now:)``, ``failed(_:)``).
package struct FleetTable: Sendable {
  package typealias Instant = ContinuousClock.Instant

  /// What the owner fetches from the fleet for a host.
  package enum Fetch: Equatable, Sendable {
    /// The host's pause, if it has one (a host first seen without a rate).
    case pause(host: String)
    /// `count` starts reserved under the host's rate (`interval` nanoseconds apart).
    case starts(host: String, interval: Int64, count: Int)
  }

  /// Until when each host is paused, by what this machine heard or was told.
  private(set) var paused = [String: Instant]()
  /// Starts reserved and not yet handed out, by host, earliest first.
  private(set) var reserved = [String: [Instant]]()
  /// Hosts with a fetch under way.
  private(set) var fetching = Set<String>()
  /// Hosts whose pause was looked up (or heard of) once.
  private(set) var known = Set<String>()

  /// Starts reserved at once: a machine holds at most this many of a host's schedule ahead.
  package static let batch = 4
  /// How long past its time a reserved start is still handed out: one older was left by
  /// transfers that went away, and is dropped.
  package static let reservationLife = Duration.seconds(1)
  /// How late a reserved start may still be taken: half the rate's interval, at most
  /// ``reservationLife``. Later, it is let go (its slot of the fleet's schedule wasted: a
  /// rate is a most): starts held for a while, taken late, would go out together.
  package static func lateness(interval: Int64) -> Duration {
    min(.nanoseconds(max(0, interval / 2)), reservationLife)
  }
  /// The longest pause kept: a day, as the other processes of a cache keep.
  package static let longestPause = Duration.seconds(86_400)

  package init() {}

  /// What the fleet says of a start for `host` at `now` under its rate (`interval`
  /// nanoseconds between starts; nil: none), and what to fetch meanwhile. An answer of
  /// `.pending` asks the loop to look again shortly: the host's reserved starts are on their
  /// way.
  package mutating func admit(
    _ host: String, interval: Int64?, now: Instant
  ) -> (answer: FleetAnswer, fetch: Fetch?) {
    if let until = paused[host] {
      if until > now { return (.paused(for: nanoseconds(until - now)), nil) }
      paused[host] = nil
    }
    guard let interval, interval > 0 else {
      guard known.insert(host).inserted, fetching.insert(host).inserted else {
        return (.start(in: 0), nil)
      }
      return (.start(in: 0), .pause(host: host))
    }
    let lateness = Self.lateness(interval: interval)
    var queue = reserved[host, default: []].filter { now - $0 <= lateness }
    let next = queue.isEmpty ? nil : queue.removeFirst()
    reserved[host] = queue.isEmpty ? nil : queue
    var fetch: Fetch?
    if queue.count <= 1, fetching.insert(host).inserted {
      fetch = .starts(host: host, interval: interval, count: Self.batch)
    }
    guard let next else { return (.pending, fetch) }
    return (.start(in: next > now ? nanoseconds(next - now) : 0), fetch)
  }

  /// The fleet's reply to a fetch for `host` at `now`: starts `waits` nanoseconds from now,
  /// or the host paused for `paused` nanoseconds.
  package mutating func received(_ host: String, waits: [Int64], paused wait: Int64?, now: Instant)
  {
    fetching.remove(host)
    known.insert(host)
    if let wait {
      heard(host, wait: wait, now: now)
      return
    }
    let starts = waits.map { now + .nanoseconds(max(0, $0)) }
    guard !starts.isEmpty else { return }
    reserved[host, default: []].append(contentsOf: starts)
  }

  /// A pause of `host` for `wait` nanoseconds from `now`, heard from another machine (or
  /// told by this one): at most a day, never shortening a longer one. The starts reserved
  /// for the host are void: the pause governs.
  package mutating func heard(_ host: String, wait: Int64, now: Instant) {
    known.insert(host)
    guard wait > 0 else { return }
    let until = now + min(.nanoseconds(wait), Self.longestPause)
    paused[host] = max(paused[host] ?? until, until)
    reserved[host] = nil
  }

  /// A fetch for `host` that failed: another may be tried at the next admission.
  package mutating func failed(_ host: String) {
    fetching.remove(host)
  }

  /// Forgets what is past, once many hosts are known.
  package mutating func prune(now: Instant) {
    guard paused.count + reserved.count + known.count > 4_096 else { return }
    paused = paused.filter { $0.value > now }
    reserved = reserved.filter { $0.value.contains { now - $0 < Self.reservationLife } }
    known = Set(paused.keys).union(reserved.keys).union(fetching)
  }

  private func nanoseconds(_ duration: Duration) -> Int64 {
    duration.checkedNanoseconds ?? .max
  }
}
