import FoundationEssentials

/// What an origin said about reusing a response (RFC 9111), kept with each entry as sent:
/// `Cache-Control`, `Expires`, `Date` and `Age`, and when the response (a 200, or the 304 that
/// last revalidated it) was received. ``FreshnessPolicy`` turns them into a verdict.
public struct ResponseFreshness: Sendable, Equatable {
  /// `Cache-Control`, several header lines joined with ", ".
  public var cacheControl: String?
  /// `Expires`.
  public var expires: String?
  /// `Date`: when the origin generated the response.
  public var date: String?
  /// `Age`: seconds the response had spent in caches on the way.
  public var age: String?
  /// When the response was received; nil for entries stored before it was kept (their
  /// `created` time stands in).
  public var received: Date?
  /// The status of the response the body came with (200 for a body completed by a 206); nil
  /// for entries stored before it was kept, taken as 200.
  public var status: Int?

  /// Creates one; every field is optional.
  public init(
    cacheControl: String? = nil, expires: String? = nil, date: String? = nil,
    age: String? = nil, received: Date? = nil, status: Int? = nil
  ) {
    self.cacheControl = cacheControl
    self.expires = expires
    self.date = date
    self.age = age
    self.received = received
    self.status = status
  }

  /// These headers updated with those a 304 carried (RFC 9111 §4.3.4): each one the 304 sent
  /// replaces the stored one, and the 304's time is the new reception time; the age is the
  /// 304's own (none: it came from the origin itself).
  package func updated(by notModified: ResponseFreshness) -> ResponseFreshness {
    ResponseFreshness(
      cacheControl: notModified.cacheControl ?? cacheControl,
      expires: notModified.expires ?? expires, date: notModified.date ?? date,
      age: notModified.age, received: notModified.received ?? received, status: status)
  }
}

/// The `Cache-Control` directives the cache acts on, parsed from ``ResponseFreshness``.
public struct CacheDirectives: Sendable, Equatable {
  /// `max-age=N`; 0 when its value is not delta-seconds (an invalid lifetime is no lifetime).
  public var maxAge: TimeInterval?
  /// `no-store`: the response is not cached (with `freshness = http`).
  public var noStore = false
  /// `private`: for one user's cache only; never written to a shared remote.
  public var isPrivate = false
  /// `no-cache`: every use revalidates first.
  public var noCache = false
  /// `must-revalidate`: once stale, never served without a successful revalidation.
  public var mustRevalidate = false
  /// `must-understand`: store only a status this cache understands (then `no-store` yields).
  public var mustUnderstand = false
  /// `stale-if-error=N`: how long past its lifetime the origin allows serving it on errors.
  public var staleIfError: TimeInterval?
  /// `stale-while-revalidate=N`, kept and shown.
  public var staleWhileRevalidate: TimeInterval?

  /// Parses a `Cache-Control` value (RFC 9111 §5.2): names case-insensitive, values as
  /// delta-seconds (a quoted one accepted), the first of a duplicated directive counts
  /// (§4.2.1); unknown directives (and `s-maxage`, for shared caches) are ignored.
  public init(_ header: String?) {
    guard let header else { return }
    var seen = Set<String>()
    for part in header.split(separator: ",") {
      let pieces = part.split(separator: "=", maxSplits: 1)
      let name = pieces.first.map { $0.trimmingWhitespace().lowercased() } ?? ""
      guard !name.isEmpty, seen.insert(name).inserted else { continue }
      var text = pieces.count == 2 ? pieces[1].trimmingWhitespace() : ""
      if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
        text = String(text.dropFirst().dropLast())
      }
      let seconds = HTTPFields.deltaSeconds(text)
      switch name {
      case "max-age": maxAge = seconds ?? 0
      case "no-store": noStore = true
      case "private": isPrivate = true
      case "no-cache": noCache = true
      case "must-revalidate", "proxy-revalidate": mustRevalidate = true
      case "must-understand": mustUnderstand = true
      case "stale-if-error": staleIfError = seconds
      case "stale-while-revalidate": staleWhileRevalidate = seconds
      default: break
      }
    }
  }

  /// The statuses whose caching rules imgcache implements (`must-understand`): full bodies.
  static let understoodStatuses: Set<Int> = [200, 203, 206]

  /// Whether a response with `status` and these directives may be stored (RFC 9111 §3,
  /// §5.2.2.3): with `must-understand`, exactly when the status is understood (`no-store`
  /// then yields); otherwise unless `no-store`.
  public func allowsStoring(status: Int) -> Bool {
    mustUnderstand ? Self.understoodStatuses.contains(status) : !noStore
  }
}
