import Foundation
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport
@testable import ImgCacheVariants

/// A variant's states fed events by hand: locking, looking, deriving, storing, writing back.
@Suite("The job machine: a variant's own states")
struct JobMachineVariantTests {
  let url = "https://img.example/a.png"
  let spec: VariantSpec
  let made = DerivedVariant(path: "/tmp/variant-1", width: 64, height: 48, format: .webp, size: 99)

  init() throws { spec = try VariantSpec.parse(preset: "64x48 webp") }

  func entry(_ key: String) -> CacheEntry {
    CacheEntry(
      key: key, url: url, file: "ab/cd.png", size: 10, allocated: 4096,
      metadata: EntryMetadata(width: 640, height: 480, sha256: String(repeating: "b", count: 64)),
      at: Date(timeIntervalSince1970: 1_000_000))
  }

  /// A job whose original is done with `outcome`, its variant still to make.
  func original(_ outcome: FetchOutcome) -> Job {
    var job = Job(url, options: FetchOptions())
    job.state = .done(.success(outcome))
    job.variant = spec
    return job
  }

  @Test("derived and stored under its own key, written back with its original named")
  func derivedStoredWrittenBack() {
    var job = original(.downloaded(entry(url), path: "/cache/data/ab/cd.png"))
    let rules = JobMachine.Rules(writesBack: true, discardsOriginal: true)
    let derivedKey = spec.derivedKey(for: url)
    guard case .lockVariant(derivedKey, nil) = JobMachine.next(&job, rules: rules) else {
      Issue.record("no variant lock")
      return
    }
    #expect(!job.isFinished)
    guard
      case .findVariant(derivedKey) = JobMachine.handle(
        .variantLocked(nil), for: &job, rules: rules)
    else {
      Issue.record("no look for a stored variant")
      return
    }
    guard
      case .derive(let derivation) = JobMachine.handle(.variantFound(nil), for: &job, rules: rules)
    else {
      Issue.record("no derivation")
      return
    }
    #expect(derivation.path == "/cache/data/ab/cd.png" && derivation.key == derivedKey)
    guard
      case .storeVariant(_, _, discardingOriginal: true) = JobMachine.handle(
        .derived(.success(made)), for: &job, rules: rules)
    else {
      Issue.record("no variant store")
      return
    }
    let body = JobMachine.StoredBody(entry: entry(derivedKey), path: "/cache/data/ef/gh.webp")
    guard
      case .writeBack(.downloaded, let source?) = JobMachine.handle(
        .stored(.success(body)), for: &job, rules: rules)
    else {
      Issue.record("no write-back with its source")
      return
    }
    #expect(source.width == 640)
    guard case .settle = JobMachine.handle(.proceed, for: &job, rules: rules),
      case .done(.success(.derived(_, "/cache/data/ef/gh.webp"))) = job.state
    else {
      Issue.record("not derived: \(job.state.name)")
      return
    }
    #expect(job.served?.key == derivedKey && job.isFinished)
  }

  @Test("a variant another process stored meanwhile is served as it is")
  func foundMeanwhile() {
    var job = original(.hit(.local(entry(url), path: "/p")))
    _ = JobMachine.next(&job, rules: .init())
    _ = JobMachine.handle(.variantLocked(nil), for: &job, rules: .init())
    let derivedKey = spec.derivedKey(for: url)
    let found = CacheHit.local(entry(derivedKey), path: "/q")
    guard case .settle = JobMachine.handle(.variantFound(found), for: &job, rules: .init()),
      case .done(.success(.hit)) = job.state
    else {
      Issue.record("not served")
      return
    }
    #expect(job.served?.key == derivedKey)
  }

  @Test("an original that may not be stored: derived at once, handed over with its body removed")
  func unstoredOriginal() {
    var job = original(.notStored(body: "/tmp/part-9"))
    _ = JobMachine.next(&job, rules: .init())
    guard case .derive = JobMachine.handle(.variantLocked(nil), for: &job, rules: .init()) else {
      Issue.record("looked for a stored variant of an unstored original")
      return
    }
    guard
      case .handOver(original: "/tmp/part-9") = JobMachine.handle(
        .derived(.success(made)), for: &job, rules: .init()),
      case .done(.success(.notStored(body: "/tmp/variant-1"))) = job.state
    else {
      Issue.record("not handed over")
      return
    }
  }

  @Test("a failed derivation is counted; a cancelled one is not")
  func derivationFailures() {
    for (error, counted) in [
      (CacheError(.cannotDerive, "too large"), true), (CacheError(.cancelled, "cancelled"), false),
    ] {
      var job = original(.downloaded(entry(url), path: "/p"))
      _ = JobMachine.next(&job, rules: .init())
      _ = JobMachine.handle(.variantLocked(nil), for: &job, rules: .init())
      _ = JobMachine.handle(.variantFound(nil), for: &job, rules: .init())
      let action = JobMachine.handle(.derived(.failure(error)), for: &job, rules: .init())
      if case .count(.derivationFailures) = action { #expect(counted) } else { #expect(!counted) }
      #expect(job.isFinished)
    }
  }

  @Test("an offline miss has no variant to make")
  func offlineMiss() {
    var job = original(.offlineMiss)
    guard case .settle = JobMachine.next(&job, rules: .init()) else {
      Issue.record("a variant of nothing")
      return
    }
    #expect(job.isFinished)
  }

  @Test("an event the state does not expect fails the job rather than hang it")
  func unexpectedEvent() {
    var job = original(.offlineMiss)
    job.variant = nil
    guard case .settle = JobMachine.handle(.submitted(ticket: 3), for: &job, rules: .init()),
      case .done(.failure(let error)) = job.state
    else {
      Issue.record("an unexpected event was taken")
      return
    }
    #expect(error.detail.contains("submitted"))
  }
}
