import Foundation
import Testing

@testable import ImgCachePipeline

/// The prefetch loop's decisions fed events by hand: no transport, no index, no clock but the
/// one the test moves (docs/architecture.md, The prefetch loop).
@Suite("The prefetch machine: reads, admits, stores, waits and ends by its events")
struct PrefetchMachineTests {
  let start = ContinuousClock.now

  /// A machine and the facts it is fed: a test clock, a cancel flag.
  struct Driver {
    var machine: PrefetchMachine
    var now: ContinuousClock.Instant
    var cancelled = false

    init(
      batchSize: Int = 256, transfers: Int = 1, run: RunState = RunState(),
      now: ContinuousClock.Instant
    ) {
      machine = PrefetchMachine(
        run: run, rules: FetchMachine.Rules(), transfers: transfers, batchSize: batchSize,
        canWake: true, now: now)
      self.now = now
    }

    /// The next action, in words (the trace the tests compare).
    mutating func next() -> String {
      describe(machine.next(.init(now: now, cancelled: cancelled, heldBack: 0)))
    }

    /// The next action itself.
    mutating func nextAction() -> PrefetchMachine.Action {
      machine.next(.init(now: now, cancelled: cancelled, heldBack: 0))
    }

    /// The actions up to the next that waits for an answer (read, look up, submit, settle,
    /// advance, take, finish), in words.
    mutating func trace() -> [String] {
      var words = [String]()
      while true {
        let word = next()
        words.append(word)
        if !["spawn", "store", "discard", "send"].contains(where: word.hasPrefix) { return words }
      }
    }
  }

  static func describe(_ action: PrefetchMachine.Action) -> String {
    switch action {
    case .read(let wanted, let wait): return "read \(wanted) \(wait)"
    case .lookUp(let urls): return "lookUp \(urls.map(\.url).joined(separator: ","))"
    case .submit(let fetches): return "submit \(fetches.count)"
    case .settle(let fetches): return "settle \(fetches.count)"
    case .spawn: return "spawn"
    case .store(let fetches): return "store \(fetches.count)"
    case .advance(let responses): return "advance \(responses.count)"
    case .discard(let file): return "discard \(file)"
    case .send(let events): return "send \(events.count)"
    case .take(let wait, let deadline): return wait ? "take wait \(deadline != nil)" : "take now"
    case .finish: return "finish"
    }
  }

  static let plan = Fetch.Plan(
    validators: nil, sequence: 0, fingerprint: "", file: "ab/cd", takesLock: false)

  /// Open fetches of `urls`, as a lookup leaves misses: to download.
  static func open(_ urls: [String]) -> [Fetch] {
    urls.map { url in
      var fetch = Fetch(url, options: FetchOptions())
      fetch.state = .download(plan)
      return fetch
    }
  }

  /// `fetches` as the owner's submit leaves them: transferring, tickets from `first`.
  static func transferring(_ fetches: [Fetch], first: UInt64 = 0) -> [Fetch] {
    fetches.enumerated().map { index, fetch in
      var fetch = fetch
      fetch.state = .transferring(plan, ticket: first + UInt64(index))
      return fetch
    }
  }

  static func done(_ fetch: Fetch, _ outcome: Result<FetchOutcome, CacheError>) -> Fetch {
    var fetch = fetch
    fetch.state = .done(outcome)
    return fetch
  }

  static let reset = CacheError(.network, "connection reset")

  @Test("a read waits on through duplicates and blank lines, and the input's end drains the run")
  func readsThroughDuplicates() {
    var driver = Driver(now: start)
    #expect(driver.trace() == ["take now"])
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["read 256 block"])
    driver.machine.inputRead(.success([.url("a")]), waited: true)
    #expect(driver.trace() == ["lookUp a"])
    driver.machine.lookedUp([Self.done(Fetch("a", options: FetchOptions()), .success(.offlineMiss))]
    )
    #expect(driver.trace() == ["send 1", "take now"])
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["read 256 block"])
    // Only a duplicate and a blank line were there: an empty batch would end the prefetch.
    driver.machine.inputRead(.success([.url("a"), .blank(line: 2)]), waited: true)
    #expect(driver.trace() == ["read 256 block"])
    driver.machine.inputRead(.success([.url("b"), .end]), waited: true)
    #expect(driver.trace() == ["lookUp b"])
    #expect(driver.machine.run.progress.duplicates == 1 && driver.machine.run.inputEnded)
    driver.machine.lookedUp([Self.done(Fetch("b", options: FetchOptions()), .success(.offlineMiss))]
    )
    #expect(driver.trace() == ["send 1", "take now"])
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["finish"], "the input ended: nothing is read again")
  }

  @Test("duplicates do not fill a batch: the read goes on for what is left of it, without waiting")
  func batchOfDistinct() {
    var driver = Driver(batchSize: 2, now: start)
    _ = driver.trace()
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["read 2 block"])
    driver.machine.inputRead(.success([.url("x"), .url("x")]), waited: true)
    #expect(driver.trace() == ["read 1 none"])
    driver.machine.inputRead(.success([.url("x")]), waited: false)
    #expect(driver.trace() == ["read 1 none"])
    driver.machine.inputRead(.success([.url("y")]), waited: false)
    #expect(driver.trace() == ["lookUp x,y"])
    #expect(driver.machine.run.progress.duplicates == 2)
  }

  @Test("a read that fails ends the input with its error; the run drains and finishes")
  func readFails() {
    var driver = Driver(now: start)
    _ = driver.trace()
    driver.machine.arrived(.init(), now: driver.now)
    _ = driver.trace()
    driver.machine.inputRead(.failure(CacheError(.localIO, "line too long")), waited: true)
    #expect(driver.trace() == ["finish"])
    #expect(driver.machine.run.inputError?.detail == "line too long")
  }

  /// A driver that has read `urls` and is admitting their open fetches.
  static func admitting(_ urls: [String], transfers: Int = 1, now: ContinuousClock.Instant)
    -> Driver
  {
    var driver = Driver(transfers: transfers, now: now)
    _ = driver.trace()
    driver.machine.arrived(.init(), now: driver.now)
    _ = driver.trace()
    driver.machine.inputRead(.success(urls.map { .url($0) }), waited: true)
    _ = driver.trace()
    driver.machine.lookedUp(Self.open(urls))
    return driver
  }
}
