import Foundation

/// Politeness shared by every machine of a fleet (docs/fleet.md, Politeness): a host's rate
/// is a schedule of starts that every machine reserves from, and a host's pause, once one
/// machine hears it, holds for all. The download loop asks it synchronously, so an answer
/// must come fast or not at all (nil: each machine's own politeness holds meanwhile).
public protocol FleetPoliteness: AnyObject, Sendable {
  /// Reserves the next start for `host` under its per-host rate (`interval` nanoseconds
  /// between starts; nil: no rate, only the host's pause is asked): how long until that start
  /// (0: now), or how long the host stays paused (nothing reserved); nil when the fleet
  /// cannot be asked.
  func reserve(_ host: String, interval: Int64?) -> FleetAnswer?
  /// Tells the fleet that `host` is paused for `nanoseconds` from now.
  func pause(_ host: String, for nanoseconds: Int64)
}

/// What the fleet says of a start.
public enum FleetAnswer: Sendable, Equatable {
  /// Start once this many nanoseconds have passed (the start is reserved).
  case start(in: Int64)
  /// The host is paused for this many nanoseconds more.
  case paused(for: Int64)
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

/// The download loop's reservations from the fleet, and when it last asked for each host's
/// pause: one round trip a start for a host with a rate, at most one a second for another.
struct FleetAdmissions {
  /// Starts reserved and not yet taken, by host.
  var reserved = [String: ContinuousClock.Instant]()
  /// When each host without a rate was last asked about, by host.
  var asked = [String: ContinuousClock.Instant]()
  /// Until when the fleet said each host is paused: its waiting transfers wait without
  /// asking again.
  var paused = [String: ContinuousClock.Instant]()
  /// How long a host without a rate goes unasked.
  static let pauseCheck = Duration.seconds(1)
  /// How long past its time a reservation is still taken: one older was left by transfers
  /// that went away (cancelled), and the fleet is asked afresh.
  static let reservationLife = Duration.seconds(1)

  /// Forgets what is past, once many hosts are known.
  mutating func prune(now: ContinuousClock.Instant) {
    guard asked.count + reserved.count + paused.count > 4_096 else { return }
    asked = asked.filter { now - $0.value < Self.pauseCheck }
    reserved = reserved.filter { now - $0.value < Self.reservationLife }
    paused = paused.filter { $0.value > now }
  }
}
