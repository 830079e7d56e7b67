import Foundation
import Testing

@testable import ImgCacheKit

/// RFC 9111's arithmetic on stored headers, without a server: dates, directives, lifetimes,
/// ages, and when a stale copy may stand in for a failed revalidation.
@Suite("Freshness: HTTP dates, Cache-Control, lifetimes, stale-if-error")
struct FreshnessPolicyTests {
  let received = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

  @Test("the three HTTP date forms name one instant; anything else is nil")
  func dates() {
    for text in [
      "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994",
    ] {
      #expect(HTTPDate.parse(text) == received, "\(text)")
    }
    #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT")?.timeIntervalSince1970 == 1_709_251_200)
    for bad in ["0", "-1", "", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994"] {
      #expect(HTTPDate.parse(bad) == nil, "\(bad)")
    }
  }

  @Test("Cache-Control: the directives acted on, case and spaces aside; s-maxage ignored")
  func directives() {
    let parsed = CacheDirectives(
      "Public, MAX-AGE=\"60\", s-maxage=600, no-cache, must-revalidate, stale-if-error=30, "
        + "stale-while-revalidate=5, no-store")
    #expect(parsed.maxAge == 60)
    #expect(parsed.noCache && parsed.noStore && parsed.mustRevalidate)
    #expect(parsed.staleIfError == 30 && parsed.staleWhileRevalidate == 5)
    #expect(CacheDirectives("max-age=abc").maxAge == 0, "an invalid lifetime is no lifetime")
    #expect(CacheDirectives(nil) == CacheDirectives(""))
  }

  private func verdict(
    _ freshness: ResponseFreshness, lastModified: String? = nil, after seconds: TimeInterval,
    policy: FreshnessPolicy = FreshnessPolicy()
  ) -> FreshnessVerdict {
    var stored = freshness
    stored.received = received
    return policy.verdict(
      stored, lastModified: lastModified, stored: received,
      at: received.addingTimeInterval(seconds))
  }

  @Test("lifetime: max-age beats Expires; Expires counts from Date; a bad Expires is expired")
  func lifetimes() {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    let hour = ResponseFreshness(cacheControl: "max-age=3600", expires: date, date: date)
    #expect(verdict(hour, after: 3599).isFresh)
    #expect(!verdict(hour, after: 3600).isFresh)
    #expect(verdict(hour, after: 3660).staleness == 60)
    let expires = ResponseFreshness(expires: "Sun, 06 Nov 1994 09:49:37 GMT", date: date)
    #expect(verdict(expires, after: 3000).isFresh && !verdict(expires, after: 3700).isFresh)
    #expect(!verdict(ResponseFreshness(expires: "0", date: date), after: 0).isFresh)
    #expect(!verdict(ResponseFreshness(), after: 0).isFresh, "nothing said: stale at once")
  }

  @Test("age: the Age header and a Date in the past both count against the lifetime")
  func ages() {
    let aged = ResponseFreshness(cacheControl: "max-age=100", age: "60")
    #expect(verdict(aged, after: 39).isFresh && !verdict(aged, after: 41).isFresh)
    let late = ResponseFreshness(
      cacheControl: "max-age=100", date: "Sun, 06 Nov 1994 08:48:57 GMT")  // 40 s before
    #expect(verdict(late, after: 59).isFresh && !verdict(late, after: 61).isFresh)
  }

  @Test("heuristic: 10 % of the time since Last-Modified, capped by heuristic_max")
  func heuristic() {
    let date = ResponseFreshness(date: "Sun, 06 Nov 1994 08:49:37 GMT")
    let tenDaysEarlier = "Thu, 27 Oct 1994 08:49:37 GMT"
    #expect(verdict(date, lastModified: tenDaysEarlier, after: 86_000).isFresh)
    #expect(!verdict(date, lastModified: tenDaysEarlier, after: 86_500).isFresh)
    var capped = FreshnessPolicy()
    capped.heuristicMax = 3600
    #expect(!verdict(date, lastModified: tenDaysEarlier, after: 3601, policy: capped).isFresh)
  }

  @Test("no-cache is never fresh; stale copies only for outages, within the window")
  func staleIfError() {
    #expect(!verdict(ResponseFreshness(cacheControl: "no-cache, max-age=600"), after: 1).isFresh)
    let outage = CacheError(.network, "connection refused")
    let unavailable = CacheError(.httpStatus, "HTTP 503", httpStatus: 503)
    let tooMany = CacheError(.httpStatus, "HTTP 429", httpStatus: 429)
    let missing = CacheError(.httpStatus, "HTTP 404", httpStatus: 404)
    let notImage = CacheError(.notAnImage, "body is not an image")
    var policy = FreshnessPolicy()
    policy.staleIfError = 3600
    let stale = verdict(ResponseFreshness(cacheControl: "max-age=60"), after: 660)
    for error in [outage, unavailable, tooMany] { #expect(policy.allowsStale(stale, after: error)) }
    for error in [missing, notImage] { #expect(!policy.allowsStale(stale, after: error)) }
    let tooOld = verdict(ResponseFreshness(cacheControl: "max-age=60"), after: 3700)
    #expect(!policy.allowsStale(tooOld, after: outage))
    #expect(!FreshnessPolicy().allowsStale(stale, after: outage), "off by default")
    let offered = verdict(
      ResponseFreshness(cacheControl: "max-age=60, stale-if-error=1200"), after: 660)
    #expect(FreshnessPolicy().allowsStale(offered, after: outage), "the origin's own window")
    let strict = verdict(ResponseFreshness(cacheControl: "max-age=60, must-revalidate"), after: 660)
    #expect(!policy.allowsStale(strict, after: outage))
    let refreshedFresh = verdict(
      ResponseFreshness(cacheControl: "max-age=600, must-revalidate"), after: 60)
    #expect(policy.allowsStale(refreshedFresh, after: outage), "a --refresh of a fresh entry")
  }

  @Test("a 304 updates the headers it carries, the age and the time; the others stay")
  func notModifiedUpdates() {
    let stored = ResponseFreshness(
      cacheControl: "max-age=60", expires: "x", date: "old", age: "5", received: received)
    let later = received.addingTimeInterval(100)
    let updated = stored.updated(
      by: ResponseFreshness(cacheControl: "max-age=120", date: "new", received: later))
    #expect(
      updated
        == ResponseFreshness(
          cacheControl: "max-age=120", expires: "x", date: "new", age: nil, received: later))
  }
}
