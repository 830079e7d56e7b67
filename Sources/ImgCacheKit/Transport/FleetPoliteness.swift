import FoundationEssentials

/// Politeness shared by every machine of a fleet (docs/fleet.md, Politeness): a host's rate
/// is a schedule of starts that every machine reserves from, and a host's pause, once one
/// machine hears it, holds for all. The download loop asks it for every start, so it answers
/// from what the machine holds (``FleetTable``) and never waits on the network: reservations
/// are fetched ahead in batches and pauses arrive as the fleet publishes them, both off the
/// loop's thread.
public protocol FleetPoliteness: AnyObject, Sendable {
  /// The next start for `host` under its per-host rate (`interval` nanoseconds between
  /// starts; nil: no rate, only the host's pause counts): how long until that start (0:
  /// now), how long the host stays paused, or `.pending` while reserved starts are on their
  /// way; nil when the fleet cannot be asked (each machine's own politeness holds meanwhile).
  func reserve(_ host: String, interval: Int64?) -> FleetAnswer?
  /// Tells the fleet that `host` is paused for `nanoseconds` from now (sent off the caller's
  /// thread).
  func pause(_ host: String, for nanoseconds: Int64)
}

/// What the fleet says of a start.
public enum FleetAnswer: Sendable, Equatable {
  /// Start once this many nanoseconds have passed (the start is reserved).
  case start(in: Int64)
  /// The host is paused for this many nanoseconds more.
  case paused(for: Int64)
  /// Starts are being reserved: ask again shortly (``FleetAdmissions/pendingCheck``).
  case pending
}

/// A fleet's politeness as a transfer option (equal when it is the same object).
public struct FleetLink: Sendable, Equatable {
  /// The fleet's shared state.
  public let politeness: any FleetPoliteness

  /// A link to `politeness`.
  public init(_ politeness: any FleetPoliteness) { self.politeness = politeness }

  public static func == (lhs: FleetLink, rhs: FleetLink) -> Bool {
    ObjectIdentifier(lhs.politeness) == ObjectIdentifier(rhs.politeness)
  }
}

/// The download loop's starts taken from the fleet and not yet due, and the pauses it was
/// told of: its waiting transfers wait for them without asking again.
struct FleetAdmissions {
  /// Starts reserved and not yet taken, by host.
  var reserved = [String: ContinuousClock.Instant]()
  /// Until when the fleet said each host is paused.
  var paused = [String: ContinuousClock.Instant]()
  /// How soon a transfer whose host's reserved starts are on their way looks again.
  static let pendingCheck = Duration.milliseconds(10)
  /// How long past its time a reservation is still taken: one older was left by transfers
  /// that went away (cancelled), and the fleet is asked afresh.
  static let reservationLife = FleetTable.reservationLife

  /// Forgets what is past, once many hosts are known.
  mutating func prune(now: ContinuousClock.Instant) {
    guard reserved.count + paused.count > 4_096 else { return }
    reserved = reserved.filter { now - $0.value < Self.reservationLife }
    paused = paused.filter { $0.value > now }
  }
}
