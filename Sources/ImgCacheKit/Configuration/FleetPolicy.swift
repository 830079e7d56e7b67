import FoundationEssentials

/// How a job's workers hold shards (policy keys `job_lease`, `max_deliveries`).
public struct FleetPolicy: Sendable, Equatable {
  /// How long a worker's hold on a shard lasts unrenewed (renewed every third of it; taken
  /// over after three). 30 s.
  public var lease: TimeInterval = 30
  /// Deliveries of a shard after which it goes to the dead list. 3.
  public var maxDeliveries = 3
  /// Where one download per URL holds: this machine (its processes), or the fleet (a Redis
  /// lock per key; `job work` always).
  public var coalesce = Coalescing.machine

  /// Where one download per URL holds (policy `coalesce`).
  public enum Coalescing: String, Sendable, CaseIterable {
    /// The processes of one cache (`locks/keys`).
    case machine
    /// Every machine of a remote tier's Redis: the first `redis://` backend holds a lock per
    /// key, and a machine that finds it taken waits for the remote object.
    case fleet
  }

  /// The defaults.
  public init() {}

  /// The policy values a job's record may carry: those of what to fetch and how politely.
  /// Credentials, TLS trust, cookie jars and the remote tier are each worker's own.
  public static let jobPolicyKeys: Set<String> = [
    "jobs", "order", "max_per_host", "rate", "rate_per_host", "retry", "retry_delay",
    "retry_after_max", "throttle_limit", "timeout", "connect_timeout", "max_time", "max_filesize",
    "max_redirs",
    "user_agent", "failed_ttl", "robots", "key_filter", "job_lease", "max_deliveries",
  ]

  /// The shortest lease a worker holds a shard by: a shorter one would have it renew (and
  /// others look for lapsed leases) many times a second.
  public static let shortestLease: TimeInterval = 1
}
