/// One download per key across a fleet (docs/fleet.md, Coalescing) as the pipeline sees it:
/// the fleet's Redis key locks (`RedisFleetLocks`) are one. Neither call waits past its own
/// short deadline: without an answer, a download goes on without the fleet.
public protocol FleetLocks: Sendable {
  /// Takes `key`'s lock if no machine holds it.
  func attempt(key: String) -> FleetLockAttempt
  /// Lets go of a lock taken by ``attempt(key:)`` (only if still this machine's).
  func release(_ name: String)
}

/// What trying a key's fleet lock found.
public enum FleetLockAttempt: Sendable, Equatable {
  /// This machine holds it (by this name) until ``FleetLocks/release(_:)``.
  case held(String)
  /// Another machine holds it.
  case busy
  /// The fleet did not answer: the download goes on without it.
  case unavailable
}
