import Foundation
import Testing

@testable import ImgCachePipeline

/// The prefetch machine's window, stores, tasks of their own and cancel, fed by hand.
@Suite("The prefetch machine: the window, store batches, tasks and a cancel")
struct PrefetchMachineWindowTests {
  typealias T = PrefetchMachineTests
  let start = ContinuousClock.now
  let urls = (0..<6).map { "https://img.example/\($0).png" }

  func admitting(transfers: Int = 1) -> T.Driver {
    T.admitting(urls, transfers: transfers, now: start)
  }

  @Test("starts four fetches a slot in input order, waits for one to end, then starts the next")
  func window() {
    var driver = admitting()
    guard case .submit(let first) = driver.nextAction() else { return #expect(Bool(false)) }
    #expect(first.map(\.given) == Array(urls.prefix(4)))
    driver.machine.submitted(T.transferring(first))
    #expect(driver.trace() == ["take now"], "the window is full: arrivals are looked for")
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["take wait false"], "nothing waits to be stored: no deadline")
    driver.machine.arrived(
      .init(responses: [(ticket: 0, result: .failure(T.reset))]), now: driver.now)
    guard case .advance(let responses) = driver.nextAction() else {
      return #expect(Bool(false))
    }
    #expect(responses.map(\.fetch.given) == [urls[0]])
    driver.machine.advanced([(T.done(responses[0].fetch, .failure(T.reset)), .settle)])
    #expect(driver.trace() == ["settle 1"])
    driver.machine.settled([T.done(responses[0].fetch, .failure(T.reset)).result])
    #expect(driver.trace() == ["send 1", "submit 1"])
    #expect(driver.machine.run.progress.failed == 1)
  }

  @Test("a checked body waits for the store delay while transfers run, then is stored alone")
  func storeDelay() {
    var driver = admitting()
    guard case .submit(let first) = driver.nextAction() else { return #expect(Bool(false)) }
    driver.machine.submitted(T.transferring(first))
    _ = driver.trace()
    driver.machine.arrived(
      .init(responses: [(ticket: 1, result: .failure(T.reset))]), now: driver.now)
    guard case .advance(let responses) = driver.nextAction() else { return #expect(Bool(false)) }
    let body = PendingStore(
      temporaryPath: "/tmp/body", key: urls[1], url: urls[1], metadata: EntryMetadata(format: .png))
    driver.machine.advanced([(responses[0].fetch, .store(body))])
    #expect(driver.trace() == ["submit 1"], "its slot is free; its body waits for company")
    driver.machine.submitted(T.transferring([T.open([urls[4]])[0]], first: 4))
    #expect(driver.trace() == ["take now"])
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["take wait true"], "the wait ends in time for the store")
    driver.now = start + .milliseconds(20)
    driver.machine.arrived(.init(), now: driver.now)
    #expect(driver.trace() == ["store 1", "take now"])
  }

  @Test("a body checked while the input keeps coming is stored before more input is read")
  func storedBetweenReads() {
    var driver = T.admitting([urls[0]], now: start)
    guard case .submit(let first) = driver.nextAction() else { return #expect(Bool(false)) }
    driver.machine.submitted(T.transferring(first))
    #expect(driver.trace() == ["take now"])
    driver.machine.arrived(
      .init(responses: [(ticket: 0, result: .failure(T.reset))]), now: driver.now)
    guard case .advance(let responses) = driver.nextAction() else { return #expect(Bool(false)) }
    let body = PendingStore(
      temporaryPath: "/tmp/body", key: urls[0], url: urls[0], metadata: EntryMetadata(format: .png))
    driver.machine.advanced([(responses[0].fetch, .store(body))])
    // Nothing else is in flight: the store starts now, not when the window fills or the input
    // ends, and the next read waits only until something (the store's end) arrives.
    #expect(driver.trace() == ["store 1", "read 256 untilArrival"])
    #expect(driver.machine.scheduler.storing == 1)
  }

  @Test("a stored batch settles its fetches; a body not cached is deleted unless kept")
  func storedAndDiscarded() {
    for keeps in [false, true] {
      var run = RunState()
      run.keepsUncachedBodies = keeps
      var driver = T.Driver(run: run, now: start)
      _ = driver.trace()
      let stored = T.done(T.open([urls[0]])[0], .success(.notStored(body: "/tmp/body")))
      driver.machine.arrived(.init(stored: [[stored]]), now: driver.now)
      #expect(driver.trace() == ["settle 1"])
      driver.machine.settled([stored.result])
      let expected =
        keeps ? ["send 1", "read 256 block"] : ["discard /tmp/body", "send 1", "read 256 block"]
      #expect(driver.trace() == expected)
    }
  }

  @Test("a fetch that waits on something else goes to a task; its result is counted when it comes")
  func spawned() {
    var driver = admitting()
    guard case .submit(let first) = driver.nextAction() else { return #expect(Bool(false)) }
    var follower = first[0]
    follower.state = .following(
      FlightKey(key: follower.key, url: follower.given, conditional: false, fingerprint: ""))
    driver.machine.submitted([follower] + T.transferring(Array(first.dropFirst()), first: 1))
    #expect(driver.trace() == ["spawn", "take now"])
    #expect(driver.machine.scheduler.children == 1)
    driver.machine.arrived(
      .init(results: [T.done(follower, .success(.offlineMiss)).result]), now: driver.now)
    #expect(driver.trace() == ["send 1", "submit 1"])
    #expect(driver.machine.scheduler.children == 0 && driver.machine.run.progress.misses == 1)
  }

  @Test("a cancel leaves the rest of the batch unfinished, waits for what is in flight, then ends")
  func cancel() {
    var driver = admitting()
    guard case .submit(let first) = driver.nextAction() else { return #expect(Bool(false)) }
    driver.machine.submitted(T.transferring(first))
    driver.cancelled = true
    #expect(driver.trace() == ["take now"])
    let cancelled = CacheError(.cancelled, "cancelled")
    driver.machine.arrived(
      .init(responses: (0..<4).map { (ticket: UInt64($0), result: .failure(cancelled)) }),
      now: driver.now)
    guard case .advance(let responses) = driver.nextAction() else { return #expect(Bool(false)) }
    driver.machine.advanced(responses.map { (T.done($0.fetch, .failure(cancelled)), .settle) })
    #expect(driver.trace() == ["settle 4"])
    driver.machine.settled(responses.map { T.done($0.fetch, .failure(cancelled)).result })
    #expect(driver.trace() == ["send 4", "finish"])
    #expect(driver.machine.run.unfinishedCount == 6)
  }
}
