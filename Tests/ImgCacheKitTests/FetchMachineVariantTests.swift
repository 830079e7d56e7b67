import Foundation
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport
@testable import ImgCacheVariants

/// A variant's states fed events by hand: locking, looking, deriving, storing, writing back.
@Suite("The fetch machine: a variant's own states")
struct FetchMachineVariantTests {
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

  /// A fetch whose original is done with `outcome`, its variant still to make.
  func original(_ outcome: FetchOutcome) -> Fetch {
    var fetch = Fetch(url, options: FetchOptions())
    fetch.state = .done(.success(outcome))
    fetch.variant = spec
    return fetch
  }

  @Test("derived and stored under its own key, written back with its original named")
  func derivedStoredWrittenBack() {
    var fetch = original(.downloaded(entry(url), path: "/cache/data/ab/cd.png"))
    let rules = FetchMachine.Rules(writesBack: true, discardsOriginal: true)
    let derivedKey = spec.derivedKey(for: url)
    guard case .lockVariant(derivedKey, nil) = FetchMachine.next(&fetch, rules: rules) else {
      Issue.record("no variant lock")
      return
    }
    #expect(!fetch.isFinished)
    guard
      case .findVariant(derivedKey) = FetchMachine.handle(
        .variantLocked(nil), for: &fetch, rules: rules)
    else {
      Issue.record("no look for a stored variant")
      return
    }
    guard
      case .derive(let derivation) = FetchMachine.handle(
        .variantFound(nil), for: &fetch, rules: rules)
    else {
      Issue.record("no derivation")
      return
    }
    #expect(derivation.path == "/cache/data/ab/cd.png" && derivation.key == derivedKey)
    guard
      case .storeVariant(_, _, discardingOriginal: true) = FetchMachine.handle(
        .derived(.success(made)), for: &fetch, rules: rules)
    else {
      Issue.record("no variant store")
      return
    }
    let body = FetchMachine.StoredBody(entry: entry(derivedKey), path: "/cache/data/ef/gh.webp")
    guard
      case .writeBack(.downloaded, let source?) = FetchMachine.handle(
        .stored(.success(body)), for: &fetch, rules: rules)
    else {
      Issue.record("no write-back with its source")
      return
    }
    #expect(source.width == 640)
    guard case .settle = FetchMachine.handle(.proceed, for: &fetch, rules: rules),
      case .done(.success(.derived(_, "/cache/data/ef/gh.webp"))) = fetch.state
    else {
      Issue.record("not derived: \(fetch.state.name)")
      return
    }
    #expect(fetch.served?.key == derivedKey && fetch.isFinished)
  }

  @Test("a variant another process stored meanwhile is served as it is")
  func foundMeanwhile() {
    var fetch = original(.hit(.local(entry(url), path: "/p")))
    _ = FetchMachine.next(&fetch, rules: .init())
    _ = FetchMachine.handle(.variantLocked(nil), for: &fetch, rules: .init())
    let derivedKey = spec.derivedKey(for: url)
    let found = CacheHit.local(entry(derivedKey), path: "/q")
    guard case .settle = FetchMachine.handle(.variantFound(found), for: &fetch, rules: .init()),
      case .done(.success(.hit)) = fetch.state
    else {
      Issue.record("not served")
      return
    }
    #expect(fetch.served?.key == derivedKey)
  }

  @Test("an original that may not be stored: derived at once, handed over with its body removed")
  func unstoredOriginal() {
    var fetch = original(.notStored(body: "/tmp/part-9"))
    _ = FetchMachine.next(&fetch, rules: .init())
    guard case .derive = FetchMachine.handle(.variantLocked(nil), for: &fetch, rules: .init())
    else {
      Issue.record("looked for a stored variant of an unstored original")
      return
    }
    guard
      case .handOver(original: "/tmp/part-9") = FetchMachine.handle(
        .derived(.success(made)), for: &fetch, rules: .init()),
      case .done(.success(.notStored(body: "/tmp/variant-1"))) = fetch.state
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
      var fetch = original(.downloaded(entry(url), path: "/p"))
      _ = FetchMachine.next(&fetch, rules: .init())
      _ = FetchMachine.handle(.variantLocked(nil), for: &fetch, rules: .init())
      _ = FetchMachine.handle(.variantFound(nil), for: &fetch, rules: .init())
      let action = FetchMachine.handle(.derived(.failure(error)), for: &fetch, rules: .init())
      if case .count(.derivationFailures) = action { #expect(counted) } else { #expect(!counted) }
      #expect(fetch.isFinished)
    }
  }

  @Test("an offline miss has no variant to make")
  func offlineMiss() {
    var fetch = original(.offlineMiss)
    guard case .settle = FetchMachine.next(&fetch, rules: .init()) else {
      Issue.record("a variant of nothing")
      return
    }
    #expect(fetch.isFinished)
  }

  @Test("an event the state does not expect fails the fetch rather than hang it")
  func unexpectedEvent() {
    var fetch = original(.offlineMiss)
    fetch.variant = nil
    guard case .settle = FetchMachine.handle(.submitted(ticket: 3), for: &fetch, rules: .init()),
      case .done(.failure(let error)) = fetch.state
    else {
      Issue.record("an unexpected event was taken")
      return
    }
    #expect(error.detail.contains("submitted"))
  }
}
