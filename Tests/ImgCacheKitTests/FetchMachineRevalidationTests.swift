import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// Revalidations through the fetch machine.
extension FetchMachineTests {
  @Test("a failed revalidation serves the stale copy (not recorded) or records a permanent failure")
  func staleIfError() {
    var plan = self.plan
    plan.validators = entry()
    var fetch = downloading(plan)
    fetch.state = .transferring(plan, ticket: 1)
    let gone = CacheError(.httpStatus, "404", httpStatus: 404)
    guard
      case .serveStale = FetchMachine.handle(
        .responded(.failure(gone)), for: &fetch, rules: .init())
    else {
      Issue.record("no stale copy asked for")
      return
    }
    var served = fetch
    let stale = FetchOutcome.stale(entry(), path: "/p", error: gone)
    guard
      case .noteFailure(_, nil) = FetchMachine.handle(.stale(stale), for: &served, rules: .init()),
      case .done(.success(.stale)) = served.state
    else {
      Issue.record("stale copy not served")
      return
    }
    guard
      case .noteFailure(_, "fp") = FetchMachine.handle(.stale(nil), for: &fetch, rules: .init()),
      case .done(.failure) = fetch.state
    else {
      Issue.record("permanent failure not recorded")
      return
    }
  }

  @Test("a 304 revalidates; a no-store body is handed over unstored under freshness = http")
  func notModifiedAndNotStored() {
    var fetch = downloading()
    fetch.state = .transferring(plan, ticket: 1)
    guard
      case .revalidate = FetchMachine.handle(
        .responded(.success(response(304))), for: &fetch, rules: .init())
    else {
      Issue.record("no revalidation")
      return
    }
    var unstored = downloading()
    unstored.state = .transferring(plan, ticket: 1)
    let rules = FetchMachine.Rules(httpFreshness: true)
    let noStore = response(cacheControl: "no-store")
    _ = FetchMachine.handle(.responded(.success(noStore)), for: &unstored, rules: rules)
    guard
      case .count(.notStored) = FetchMachine.handle(
        .checked(.success(pending())), for: &unstored, rules: rules),
      case .done(.success(.notStored(body: "/tmp/part-1"))) = unstored.state
    else {
      Issue.record("no-store body stored")
      return
    }
  }
}
