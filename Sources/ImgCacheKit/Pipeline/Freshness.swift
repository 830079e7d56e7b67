import FoundationEssentials

/// Whether stored entries are reused as long as they exist (SDWebImage's way, the default) or
/// only while the origin says they are fresh (RFC 9111), and when a stale copy may stand in
/// for a failed revalidation. The defaults are written here once.
public struct FreshnessPolicy: Sendable, Equatable {
  /// How a hit is judged.
  public enum Mode: String, Sendable, CaseIterable {
    /// A stored entry is used as long as it exists.
    case never
    /// A stale entry is revalidated first; `no-store` responses are not cached.
    case http
  }

  /// How a hit is judged. The default is `.never`.
  public var mode = Mode.never
  /// The most a heuristic lifetime (10 % of the time since Last-Modified) may be. One day.
  public var heuristicMax: TimeInterval = 86_400
  /// How long past its lifetime a stored copy may be served when a revalidation or a refresh
  /// fails with a network error, a 5xx or a 429; 0 leaves it to the response's own
  /// `stale-if-error`. The default is 0.
  public var staleIfError: TimeInterval = 0

  /// The defaults.
  public init() {}

  /// The statuses a heuristic lifetime may be given to (RFC 9111 §4.2.2, RFC 9110 §15.1).
  static let heuristicallyCacheable: Set<Int> = [
    200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
  ]

  /// `staleIfError` for "any age": what `--stale-if-error` alone means.
  public static let anyAge: TimeInterval = 100 * 365 * 86_400

  /// The verdict on `freshness` (of a body last received or created at `stored`) at `now`.
  public func verdict(
    _ freshness: ResponseFreshness, lastModified: String?, stored: Date, at now: Date
  ) -> FreshnessVerdict {
    let directives = CacheDirectives(freshness.cacheControl)
    let received = freshness.received ?? stored
    let date = freshness.date.flatMap { HTTPDate.parse($0) } ?? received
    // RFC 9111 §4.2.3: the age when received, then the time resident here.
    let ageValue = HTTPFields.age(freshness.age) ?? 0
    let initialAge = max(max(0, received.timeIntervalSince(date)), ageValue)
    let lifetime: TimeInterval
    if let maxAge = directives.maxAge {
      lifetime = maxAge
    } else if let expires = freshness.expires {
      // An invalid date (`0`, `-1`, `UTC`, a two-digit year) means already expired (§5.3).
      lifetime = HTTPDate.parse(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
    } else if Self.heuristicallyCacheable.contains(freshness.status ?? 200),
      let modified = lastModified.flatMap({ HTTPDate.parse($0) })
    {
      lifetime = min(max(0, date.timeIntervalSince(modified)) / 10, heuristicMax)
    } else {
      lifetime = 0
    }
    let freshUntil = received.addingTimeInterval(lifetime - initialAge)
    return FreshnessVerdict(
      freshUntil: freshUntil, isFresh: !directives.noCache && now < freshUntil,
      staleness: max(0, now.timeIntervalSince(freshUntil)), directives: directives)
  }

  /// Whether a stored copy judged `verdict` may be served in place of a revalidation that
  /// failed with `error`: only network failures, 5xx and 429; never when the origin said
  /// `no-cache` or `must-revalidate` (RFC 9111 §4.2.4); within this policy's window or the
  /// response's own `stale-if-error`.
  public func allowsStale(_ verdict: FreshnessVerdict, after error: CacheError) -> Bool {
    let status = error.httpStatus ?? 0
    guard error.kind == .network || (error.kind == .httpStatus && (status >= 500 || status == 429))
    else { return false }
    let directives = verdict.directives
    if directives.noCache || (directives.mustRevalidate && verdict.staleness > 0) { return false }
    let window = max(staleIfError, directives.staleIfError ?? 0)
    return window > 0 && verdict.staleness <= window
  }
}

/// What ``FreshnessPolicy/verdict(_:lastModified:stored:at:)`` decided for one entry.
public struct FreshnessVerdict: Sendable, Equatable {
  /// Until when the entry is fresh (in the past when it is stale).
  public var freshUntil: Date
  /// Whether it may be used now without asking the origin.
  public var isFresh: Bool
  /// How long ago it became stale; 0 while fresh.
  public var staleness: TimeInterval
  /// The origin's directives.
  public var directives: CacheDirectives
}

extension FreshnessPolicy {
  /// The verdict on `entry` at `now`.
  public func verdict(on entry: CacheEntry, at now: Date) -> FreshnessVerdict {
    verdict(entry.freshness, lastModified: entry.lastModified, stored: entry.created, at: now)
  }
}
