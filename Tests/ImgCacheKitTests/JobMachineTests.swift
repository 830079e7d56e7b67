import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// The transition function fed events by hand: no server, no disk but a lock file, no clock.
@Suite("The job machine: events in, actions out")
struct JobMachineTests {
  let url = "https://img.example/a.png"
  let plan = Job.Plan(
    validators: nil, sequence: 1, fingerprint: "fp", file: "ab/cd.png", takesLock: true)
  let directory = TemporaryDirectory()
  var locks: KeyLocks { KeyLocks(path: directory.url.appendingPathComponent("locks").path) }

  /// A job of `url`, about to download under `plan`.
  func downloading(_ plan: Job.Plan? = nil) -> Job {
    var job = Job(url, options: FetchOptions())
    job.state = .download(plan ?? self.plan)
    return job
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
    var job = downloading()
    let rules = JobMachine.Rules(writesBack: true)
    guard case .join(let flight) = JobMachine.next(&job, rules: rules) else {
      Issue.record("no join")
      return
    }
    #expect(flight.key == url && !flight.conditional && flight.fingerprint == "fp")
    guard case .lock = JobMachine.handle(.joined(flight, leads: true), for: &job, rules: rules)
    else {
      Issue.record("no lock")
      return
    }
    #expect(job.flight == flight)
    let held = try lock(url)
    guard
      case .submit(let submitted) = JobMachine.handle(
        .locked(.held(held)), for: &job, rules: rules)
    else {
      Issue.record("no submit")
      return
    }
    #expect(!submitted.takesLock && job.lock === held)
    guard case .awaitResponse(7) = JobMachine.handle(.submitted(ticket: 7), for: &job, rules: rules)
    else {
      Issue.record("no wait for ticket 7")
      return
    }
    guard
      case .check(_, "ab/cd.png") = JobMachine.handle(
        .responded(.success(response())), for: &job, rules: rules)
    else {
      Issue.record("no check")
      return
    }
    #expect(job.bytes == 10)
    guard case .store = JobMachine.handle(.checked(.success(pending())), for: &job, rules: rules)
    else {
      Issue.record("no store")
      return
    }
    let body = JobMachine.StoredBody(entry: entry(), path: "/cache/data/ab/cd.png")
    guard
      case .writeBack(.downloaded, nil) = JobMachine.handle(
        .stored(.success(body)), for: &job, rules: rules)
    else {
      Issue.record("no write-back")
      return
    }
    guard case .settle = JobMachine.handle(.proceed, for: &job, rules: rules) else {
      Issue.record("not settled")
      return
    }
    guard case .done(.success(.downloaded(_, "/cache/data/ab/cd.png"))) = job.state else {
      Issue.record("not downloaded: \(job.state.name)")
      return
    }
  }

  @Test("without a remote tier a stored body settles at once")
  func storedWithoutWriteBack() {
    var job = downloading()
    job.state = .checked(plan, pending())
    let body = JobMachine.StoredBody(entry: entry(), path: "/p")
    let action = JobMachine.handle(.stored(.success(body)), for: &job, rules: .init())
    guard case .settle = action, case .done(.success(.downloaded)) = job.state else {
      Issue.record("expected settle of a download, got \(job.state.name)")
      return
    }
  }

  @Test("a follower takes the leader's result, its variant included")
  func follower() throws {
    var job = downloading()
    job.variant = try VariantSpec.parse(preset: "64x48 webp")
    #expect(job.variant != nil)
    let flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    guard
      case .follow(flight) = JobMachine.handle(
        .joined(flight, leads: false), for: &job, rules: .init())
    else {
      Issue.record("no follow")
      return
    }
    #expect(job.flight == nil)
    let result = FetchResult(url: url, key: url, outcome: .success(.offlineMiss), bytes: 42)
    guard case .settle = JobMachine.handle(.followed(result), for: &job, rules: .init()) else {
      Issue.record("not settled")
      return
    }
    #expect(job.bytes == 42 && job.variant == nil && job.isFinished)
  }

  @Test("another process holds the key: wait, then download holding its lock, or serve its store")
  func waitsForProcess() throws {
    var job = downloading()
    job.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    #expect(isLock(JobMachine.next(&job, rules: .init())))
    guard case .waitForProcess = JobMachine.handle(.locked(.busy), for: &job, rules: .init())
    else {
      Issue.record("no wait")
      return
    }
    let held = try lock(url)
    var freed = job
    guard
      case .submit(let again) = JobMachine.handle(
        .waited(lock: held, served: nil, cancelled: false), for: &freed, rules: .init())
    else {
      Issue.record("no submit after the wait")
      return
    }
    #expect(!again.takesLock && freed.lock === held)
    var served = job
    let hit = CacheHit.local(entry(), path: "/p")
    _ = JobMachine.handle(
      .waited(lock: nil, served: hit, cancelled: false), for: &served, rules: .init())
    guard case .done(.success(.hit)) = served.state else {
      Issue.record("not served")
      return
    }
    var cancelled = job
    _ = JobMachine.handle(
      .waited(lock: nil, served: nil, cancelled: true), for: &cancelled, rules: .init())
    guard case .done(.failure(let error)) = cancelled.state else {
      Issue.record("not cancelled")
      return
    }
    #expect(error.kind == .cancelled)
  }

  func isLock(_ action: JobMachine.Action) -> Bool {
    if case .lock = action { return true }
    return false
  }

  @Test("a refused resume starts over once; the second refusal is the failure")
  func restartsOnce() throws {
    var job = downloading()
    job.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    job.lock = try lock(url)
    var plan = self.plan
    plan.takesLock = false
    job.state = .transferring(plan, ticket: 1)
    let refused = CacheError(.httpStatus, "416", httpStatus: 416)
    guard
      case .settlePartial = JobMachine.handle(
        .responded(.failure(refused)), for: &job, rules: .init())
    else {
      Issue.record("no partial settled")
      return
    }
    guard case .submit(let again) = JobMachine.handle(.partial(.restart), for: &job, rules: .init())
    else {
      Issue.record("no restart")
      return
    }
    #expect(again.restarted)
    job.state = .transferring(again, ticket: 2)
    _ = JobMachine.handle(.responded(.failure(refused)), for: &job, rules: .init())
    guard
      case .noteFailure(_, nil) = JobMachine.handle(.partial(.restart), for: &job, rules: .init())
    else {
      Issue.record("restarted twice")
      return
    }
  }

  @Test("a full disk gives up the kept partial bodies once, then fails")
  func fullDiskOnce() {
    var job = downloading()
    job.flight = FlightKey(key: url, url: url, conditional: false, fingerprint: "fp")
    var plan = self.plan
    plan.takesLock = false
    job.state = .transferring(plan, ticket: 1)
    let full = CacheError(.localIO, "No space left on device", underlying: POSIXError(.ENOSPC))
    guard case .makeRoom = JobMachine.handle(.responded(.failure(full)), for: &job, rules: .init())
    else {
      Issue.record("no room made: \(job.state.name)")
      return
    }
    guard case .submit(let again) = JobMachine.handle(.proceed, for: &job, rules: .init()) else {
      Issue.record("not tried again")
      return
    }
    job.state = .transferring(again, ticket: 2)
    guard
      case .noteFailure = JobMachine.handle(.responded(.failure(full)), for: &job, rules: .init())
    else {
      Issue.record("made room twice")
      return
    }
  }

  @Test("a failed revalidation serves the stale copy (not recorded) or records a permanent failure")
  func staleIfError() {
    var plan = self.plan
    plan.validators = entry()
    var job = downloading(plan)
    job.state = .transferring(plan, ticket: 1)
    let gone = CacheError(.httpStatus, "404", httpStatus: 404)
    guard
      case .serveStale = JobMachine.handle(.responded(.failure(gone)), for: &job, rules: .init())
    else {
      Issue.record("no stale copy asked for")
      return
    }
    var served = job
    let stale = FetchOutcome.stale(entry(), path: "/p", error: gone)
    guard
      case .noteFailure(_, nil) = JobMachine.handle(.stale(stale), for: &served, rules: .init()),
      case .done(.success(.stale)) = served.state
    else {
      Issue.record("stale copy not served")
      return
    }
    guard case .noteFailure(_, "fp") = JobMachine.handle(.stale(nil), for: &job, rules: .init()),
      case .done(.failure) = job.state
    else {
      Issue.record("permanent failure not recorded")
      return
    }
  }

  @Test("a 304 revalidates; a no-store body is handed over unstored under freshness = http")
  func notModifiedAndNotStored() {
    var job = downloading()
    job.state = .transferring(plan, ticket: 1)
    guard
      case .revalidate = JobMachine.handle(
        .responded(.success(response(304))), for: &job, rules: .init())
    else {
      Issue.record("no revalidation")
      return
    }
    var unstored = downloading()
    unstored.state = .transferring(plan, ticket: 1)
    let rules = JobMachine.Rules(httpFreshness: true)
    let noStore = response(cacheControl: "no-store")
    _ = JobMachine.handle(.responded(.success(noStore)), for: &unstored, rules: rules)
    guard
      case .count(.notStored) = JobMachine.handle(
        .checked(.success(pending())), for: &unstored, rules: rules),
      case .done(.success(.notStored(body: "/tmp/part-1"))) = unstored.state
    else {
      Issue.record("no-store body stored")
      return
    }
  }
}
