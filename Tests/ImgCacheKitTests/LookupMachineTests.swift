import Foundation
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline

/// The lookup stages' decisions fed by hand: no index, no tiers, no remote, no clock.
@Suite("The lookup machine: tiers asked in order, their answers decided, downloads planned")
struct LookupMachineTests {
  let urls = (0..<4).map { "https://img.example/\($0).png" }

  func machine(_ rules: LookupMachine.Rules = .init(), urls: [String]? = nil) -> LookupMachine {
    LookupMachine((urls ?? self.urls).map { Fetch($0, options: FetchOptions()) }, rules: rules)
  }

  func entry(_ url: String, storedAt seconds: Double = 1_000_000) -> CacheEntry {
    CacheEntry(
      key: url, url: url, file: CacheLayout.relativeFile(for: url), size: 10, allocated: 4096,
      metadata: EntryMetadata(sha256: String(repeating: "a", count: 64)),
      at: Date(timeIntervalSince1970: seconds))
  }

  /// The failure a finished fetch ended with, if it failed.
  func failure(_ fetch: Fetch) -> CacheError? {
    if case .failure(let error) = fetch.result.outcome { return error }
    return nil
  }

  func hit(_ url: String) -> CacheHit { .local(entry(url), path: "/cache/" + url) }

  static func words(_ action: LookupMachine.Action) -> String {
    switch action {
    case .findVariants(let keys): "findVariants \(keys.count)"
    case .askRemoteVariants(_, let urls): "askRemoteVariants \(urls.count)"
    case .linkVariants(let links): "linkVariants \(links.count)"
    case .readIndex(let keys): "readIndex \(keys.count)"
    case .readFailures(let requests): "readFailures \(requests.count)"
    case .note(let counts):
      "note " + counts.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")
    case .readTiers(let keys, let read, let lookups):
      "readTiers \(keys.count) \(read != nil) lookups=\(lookups.map(String.init) ?? "-")"
    case .askRemote(let urls): "askRemote \(urls.count)"
    case .readValidators(let keys): "readValidators \(keys.count)"
    case .number(let count, _): "number \(count)"
    case .forget(let urls): "forget \(urls.count)"
    case .finish: "finish"
    }
  }

  @Test("a batch: one index read, one failure query, the tiers, then plans numbered in input order")
  func batch() {
    var machine = machine()
    #expect(Self.words(machine.next()) == "readIndex 4")
    machine.indexRead(
      .success(IndexLookup(keys: urls, entries: [entry(urls[1])], failuresRecorded: true)))
    #expect(Self.words(machine.next()) == "readFailures 4")
    let record = FailedURL(
      url: urls[3], fingerprint: "f", reason: "HTTP 404", kind: "http_status", httpStatus: 404,
      count: 1, firstFailure: Date(), lastFailure: Date())
    machine.failuresRead(.success([urls[3]: record]))
    guard case .readTiers(let keys, let read?, lookups: 3) = machine.next() else {
      return #expect(Bool(false), "the refused URL is no lookup")
    }
    #expect(keys == Array(urls.prefix(3)) && read.keys == keys)
    machine.tiersRead(.success([urls[1]: hit(urls[1])]), readOnlyBytes: 0)
    #expect(Self.words(machine.next()) == "note blacklisted=1,misses=2")
    guard case .number(2, let requests) = machine.next() else { return #expect(Bool(false)) }
    #expect(requests.map { $0?.stripped } == [urls[0], urls[2]])
    machine.numbered(first: 7, fingerprints: ["f0", "f2"])
    guard case .finish(let fetches) = machine.next() else { return #expect(Bool(false)) }
    guard case .download(let first) = fetches[0].state, case .download(let third) = fetches[2].state
    else { return #expect(Bool(false)) }
    #expect(first.sequence == 7 && third.sequence == 8 && third.fingerprint == "f2")
    #expect(
      first.takesLock && first.validators == nil
        && first.file == CacheLayout.relativeFile(for: urls[0]))
    #expect(fetches[1].result.outcome.map(\.name) == .success("hit"))
    #expect(failure(fetches[3])?.kind == .blacklisted)
  }

  @Test("an index that cannot be read fails what is not done, and the batch is still counted")
  func indexFails() {
    var machine = machine(urls: Array(urls.prefix(2)))
    _ = machine.next()
    machine.indexRead(.failure(CacheError(.localIO, "disk I/O error")))
    guard case .finish(let fetches) = machine.next() else { return #expect(Bool(false)) }
    #expect(fetches.allSatisfy { failure($0)?.detail == "disk I/O error" })
    #expect(machine.error != nil)
  }

  @Test(
    "offline, a miss is an offline miss (nothing numbered), and a stale copy is served as it is")
  func offline() {
    var rules = LookupMachine.Rules()
    rules.mode = .offline
    rules.freshness.mode = .http
    rules.now = Date(timeIntervalSince1970: 2_000_000_000)
    var machine = machine(rules, urls: Array(urls.prefix(2)))
    _ = machine.next()
    machine.indexRead(
      .success(IndexLookup(keys: Array(urls.prefix(2)), entries: [], failuresRecorded: false)))
    #expect(
      Self.words(machine.next()) == "readTiers 2 true lookups=2", "no failure recorded: none read")
    machine.tiersRead(.success([urls[0]: hit(urls[0])]), readOnlyBytes: 0)
    _ = machine.next()
    guard case .finish(let fetches) = machine.next() else { return #expect(Bool(false)) }
    #expect(
      fetches.map { $0.result.outcome.map(\.name) } == [.success("hit"), .success("offline_miss")])
  }

  @Test("--refresh asks no tier, then the stored entries' validators; --retry-failed refuses none")
  func refresh() {
    var rules = LookupMachine.Rules()
    (rules.mode, rules.refusesFailed, rules.forgetsServed) = (.refresh, false, true)
    var machine = machine(rules, urls: Array(urls.prefix(2)))
    #expect(Self.words(machine.next()) == "readValidators 2")
    machine.validatorsRead(.success([entry(urls[1])]))
    guard case .number(2, _) = machine.next() else { return #expect(Bool(false)) }
    machine.numbered(first: 1, fingerprints: ["f", "f"])
    guard case .finish(let fetches) = machine.next() else { return #expect(Bool(false)) }
    guard case .download(let plain) = fetches[0].state,
      case .download(let conditional) = fetches[1].state
    else { return #expect(Bool(false)) }
    #expect(plain.validators == nil && conditional.validators?.key == urls[1])
    #expect(!plain.takesLock && !conditional.takesLock, "only a plain miss in normal mode locks")
  }

  @Test("the remote tier is asked for what no local tier had; a served copy leaves the failed list")
  func remote() {
    var rules = LookupMachine.Rules()
    (rules.asksRemote, rules.refusesFailed, rules.forgetsServed) = (true, false, true)
    var machine = machine(rules, urls: Array(urls.prefix(2)))
    #expect(Self.words(machine.next()) == "readIndex 2")
    let read = IndexLookup(keys: Array(urls.prefix(2)), entries: [], failuresRecorded: nil)
    machine.indexRead(.success(read))
    #expect(
      Self.words(machine.next()) == "readTiers 2 true lookups=2", "no refusal with --retry-failed")
    machine.tiersRead(.success([:]), readOnlyBytes: 0)
    #expect(Self.words(machine.next()) == "askRemote 2")
    machine.remoteRead([urls[0]: .remote(entry(urls[0]), path: "/cache/0", backend: "redis")])
    #expect(Self.words(machine.next()) == "note misses=1")
    guard case .number(1, _) = machine.next() else { return #expect(Bool(false)) }
    machine.numbered(first: 1, fingerprints: ["f"])
    #expect(Self.words(machine.next()) == "forget 1")
  }

  @Test(
    "a stored variant is served without its original; a remote one only while its original holds")
  func variants() throws {
    let spec = try VariantSpec.parse(preset: "64x48")
    var rules = LookupMachine.Rules()
    (rules.variant, rules.asksRemote) = (spec, true)
    var machine = machine(rules, urls: Array(urls.prefix(3)))
    #expect(Self.words(machine.next()) == "findVariants 3")
    let derived = urls.map { spec.derivedKey(for: $0) }
    machine.variantsFound(.success([derived[0]: hit(derived[0])]))
    #expect(Self.words(machine.next()) == "askRemoteVariants 2")
    let copy = { (key: String) in CacheHit.remote(self.entry(key), path: "/c/" + key, backend: "s3")
    }
    machine.remoteVariantsFound(
      [derived[1]: copy(derived[1]), derived[2]: copy(derived[2])], sources: [:])
    #expect(Self.words(machine.next()) == "linkVariants 2")
    machine.variantsLinked(.success([derived[2]]))
    #expect(
      Self.words(machine.next()) == "readIndex 1", "the outdated variant's original is looked up")
    #expect(
      machine.fetches[0].served?.key == derived[0] && machine.fetches[1].served?.key == derived[1])
    #expect(machine.tally.counts[.variantHits] == 2 && machine.fetches[2].variant == spec)
  }

  @Test("a part of a batch stops after its counts; the whole batch is then planned in input order")
  func parts() {
    var rules = LookupMachine.Rules()
    rules.lastStage = .note
    var part = machine(rules, urls: Array(urls.prefix(2)))
    _ = part.next()
    part.indexRead(
      .success(IndexLookup(keys: Array(urls.prefix(2)), entries: [], failuresRecorded: false)))
    _ = part.next()
    part.tiersRead(.success([:]), readOnlyBytes: 0)
    #expect(Self.words(part.next()) == "note misses=2")
    guard case .finish(let looked) = part.next() else { return #expect(Bool(false)) }
    #expect(looked.allSatisfy { $0.isMissing }, "no plan yet")
    var whole = LookupMachine(looked, rules: LookupMachine.Rules(), from: .plan)
    guard case .number(2, _) = whole.next() else { return #expect(Bool(false)) }
    whole.numbered(first: 40, fingerprints: ["f", "f"])
    guard case .finish(let planned) = whole.next() else { return #expect(Bool(false)) }
    let places = planned.compactMap { fetch -> UInt64? in
      if case .download(let plan) = fetch.state { return plan.sequence }
      return nil
    }
    #expect(places == [40, 41])
  }
}
