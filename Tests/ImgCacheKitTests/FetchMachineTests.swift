import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// The transition function fed events by hand: no server, no disk but a lock file, no clock.
@Suite("The fetch machine: events in, actions out")
struct FetchMachineTests {
  let url = "https://img.example/a.png"
  let plan = Fetch.Plan(
    validators: nil, sequence: 1, fingerprint: "fp", file: "ab/cd.png", takesLock: true)
  let directory = TemporaryDirectory()
  var locks: KeyLocks { KeyLocks(path: directory.url.appendingPathComponent("locks").path) }

  /// A fetch of `url`, about to download under `plan`.
  func downloading(_ plan: Fetch.Plan? = nil) -> Fetch {
    var fetch = Fetch(url, options: FetchOptions())
    fetch.state = .download(plan ?? self.plan)
    return fetch
  }

  func entry(_ key: String = "https://img.example/a.png") -> CacheEntry {
    CacheEntry(
      key: key, url: url, file: "ab/cd.png", size: 10, allocated: 4096,
      metadata: EntryMetadata(sha256: String(repeating: "a", count: 64)),
      at: Date(timeIntervalSince1970: 1_000_000))
  }

  func response(_ status: Int = 200, cacheControl: String? = nil) -> DownloadResponse {
    var freshness = ResponseFreshness()
    freshness.cacheControl = cacheControl
    return DownloadResponse(
      status: status, file: nil, bytes: 10, contentType: "image/png", etag: nil,
      lastModified: nil, effectiveURL: url, sha256: nil, freshness: freshness, body: Data())
  }

  func pending() -> PendingStore {
    PendingStore(temporaryPath: "/tmp/part-1", key: url, url: url, metadata: EntryMetadata())
  }

  func lock(_ key: String) throws -> KeyLock {
    try #require(try locks.attempt(key: key))
  }

  @Test("a plain miss: join, lock, submit, respond, check, store, write back, settle")
  func plainMiss() throws {
    var fetch = downloading()
    let rules = FetchMachine.Rules(writesBack: true)
    guard case .join(let flight) = FetchMachine.next(&fetch, rules: rules) else {
      Issue.record("no join")
      return
    }
    #expect(flight.key == url && !flight.conditional && flight.fingerprint == "fp")
    guard case .lock = FetchMachine.handle(.joined(flight, leads: true), for: &fetch, rules: rules)
    else {
      Issue.record("no lock")
      return
    }
    #expect(fetch.flight == flight)
    let held = try lock(url)
    guard
      case .submit(let submitted) = FetchMachine.handle(
        .locked(.held(held)), for: &fetch, rules: rules)
    else {
      Issue.record("no submit")
      return
    }
    #expect(!submitted.takesLock && fetch.lock === held)
    guard
      case .awaitResponse(7) = FetchMachine.handle(.submitted(ticket: 7), for: &fetch, rules: rules)
    else {
      Issue.record("no wait for ticket 7")
      return
    }
    guard
      case .check(_, "ab/cd.png") = FetchMachine.handle(
        .responded(.success(response())), for: &fetch, rules: rules)
    else {
      Issue.record("no check")
      return
    }
    #expect(fetch.bytes == 10)
    guard
      case .store = FetchMachine.handle(.checked(.success(pending())), for: &fetch, rules: rules)
    else {
      Issue.record("no store")
      return
    }
    let body = FetchMachine.StoredBody(entry: entry(), path: "/cache/data/ab/cd.png")
    guard
      case .writeBack(.downloaded, nil) = FetchMachine.handle(
        .stored(.success(body)), for: &fetch, rules: rules)
    else {
      Issue.record("no write-back")
      return
    }
    guard case .settle = FetchMachine.handle(.proceed, for: &fetch, rules: rules) else {
      Issue.record("not settled")
      return
    }
    guard case .done(.success(.downloaded(_, "/cache/data/ab/cd.png"))) = fetch.state else {
      Issue.record("not downloaded: \(fetch.state.name)")
      return
    }
  }

  @Test("without a remote tier a stored body settles at once")
  func storedWithoutWriteBack() {
    var fetch = downloading()
    fetch.state = .checked(plan, pending())
    let body = FetchMachine.StoredBody(entry: entry(), path: "/p")
    let action = FetchMachine.handle(.stored(.success(body)), for: &fetch, rules: .init())
    guard case .settle = action, case .done(.success(.downloaded)) = fetch.state else {
      Issue.record("expected settle of a download, got \(fetch.state.name)")
      return
    }
  }

  @Test("a follower takes the leader's result, its variant included")
  func follower() throws {
    var fetch = downloading()
    fetch.variant = try VariantSpec.parse(preset: "64x48 webp")
    #expect(fetch.variant != nil)
    let flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    guard
      case .follow(flight) = FetchMachine.handle(
        .joined(flight, leads: false), for: &fetch, rules: .init())
    else {
      Issue.record("no follow")
      return
    }
    #expect(fetch.flight == nil)
    let result = FetchResult(url: url, key: url, outcome: .success(.offlineMiss), bytes: 42)
    guard case .settle = FetchMachine.handle(.followed(result), for: &fetch, rules: .init()) else {
      Issue.record("not settled")
      return
    }
    #expect(fetch.bytes == 42 && fetch.variant == nil && fetch.isFinished)
  }

  @Test("another process holds the key: wait, then download holding its lock, or serve its store")
  func waitsForProcess() throws {
    var fetch = downloading()
    fetch.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    #expect(isLock(FetchMachine.next(&fetch, rules: .init())))
    guard case .waitForProcess = FetchMachine.handle(.locked(.busy), for: &fetch, rules: .init())
    else {
      Issue.record("no wait")
      return
    }
    let held = try lock(url)
    var freed = fetch
    guard
      case .submit(let again) = FetchMachine.handle(
        .waited(lock: held, served: nil, cancelled: false), for: &freed, rules: .init())
    else {
      Issue.record("no submit after the wait")
      return
    }
    #expect(!again.takesLock && freed.lock === held)
    var served = fetch
    let hit = CacheHit.local(entry(), path: "/p")
    _ = FetchMachine.handle(
      .waited(lock: nil, served: hit, cancelled: false), for: &served, rules: .init())
    guard case .done(.success(.hit)) = served.state else {
      Issue.record("not served")
      return
    }
    var cancelled = fetch
    _ = FetchMachine.handle(
      .waited(lock: nil, served: nil, cancelled: true), for: &cancelled, rules: .init())
    guard case .done(.failure(let error)) = cancelled.state else {
      Issue.record("not cancelled")
      return
    }
    #expect(error.kind == .cancelled)
  }

  func isLock(_ action: FetchMachine.Action) -> Bool {
    if case .lock = action { return true }
    return false
  }

  @Test("a refused resume starts over once; the second refusal is the failure")
  func restartsOnce() throws {
    var fetch = downloading()
    fetch.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    fetch.lock = try lock(url)
    var plan = self.plan
    plan.takesLock = false
    fetch.state = .transferring(plan, ticket: 1)
    let refused = CacheError(.httpStatus, "416", httpStatus: 416)
    guard
      case .settlePartial = FetchMachine.handle(
        .responded(.failure(refused)), for: &fetch, rules: .init())
    else {
      Issue.record("no partial settled")
      return
    }
    guard
      case .submit(let again) = FetchMachine.handle(.partial(.restart), for: &fetch, rules: .init())
    else {
      Issue.record("no restart")
      return
    }
    #expect(again.restarted)
    fetch.state = .transferring(again, ticket: 2)
    _ = FetchMachine.handle(.responded(.failure(refused)), for: &fetch, rules: .init())
    guard
      case .noteFailure(_, nil) = FetchMachine.handle(
        .partial(.restart), for: &fetch, rules: .init())
    else {
      Issue.record("restarted twice")
      return
    }
  }

  @Test("a full disk gives up the kept partial bodies once, then fails")
  func fullDiskOnce() {
    var fetch = downloading()
    fetch.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    var plan = self.plan
    plan.takesLock = false
    fetch.state = .transferring(plan, ticket: 1)
    let full = CacheError(.localIO, "No space left on device", underlying: POSIXError(.ENOSPC))
    guard
      case .makeRoom = FetchMachine.handle(.responded(.failure(full)), for: &fetch, rules: .init())
    else {
      Issue.record("no room made: \(fetch.state.name)")
      return
    }
    guard case .submit(let again) = FetchMachine.handle(.proceed, for: &fetch, rules: .init())
    else {
      Issue.record("not tried again")
      return
    }
    fetch.state = .transferring(again, ticket: 2)
    guard
      case .noteFailure = FetchMachine.handle(
        .responded(.failure(full)), for: &fetch, rules: .init())
    else {
      Issue.record("made room twice")
      return
    }
  }
}
