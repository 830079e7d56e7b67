import Testing

@testable import ImgCachePipeline

/// The wait for another machine's download, fed events on instants the test names: no Redis,
/// no remote tier, no sleep.
@Suite("Fleet wait machine: look, lock, wait, give up")
struct FleetWaitMachineTests {
  let t0 = ContinuousClock.now

  func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

  func machine(deadline: Int = 1_000) -> FleetWaitMachine {
    FleetWaitMachine(deadline: at(deadline), poll: .milliseconds(200))
  }

  @Test("busy, then the object arrives: served, looked for once a poll")
  func served() {
    var wait = machine()
    #expect(wait.start(now: at(0)) == .lookUp)
    #expect(wait.handle(.notFound, now: at(1)) == .tryLock)
    #expect(wait.handle(.lockBusy, now: at(2)) == .wait(until: at(202)))
    #expect(wait.handle(.timer, now: at(202)) == .lookUp)
    #expect(wait.handle(.found, now: at(203)) == .finish(.served))
  }

  @Test("the other machine let go without storing: this one takes the lock; Redis gone: alone")
  func lockOrAlone() {
    var taken = machine()
    _ = taken.start(now: at(0))
    _ = taken.handle(.notFound, now: at(1))
    #expect(taken.handle(.lockHeld, now: at(2)) == .finish(.lockTaken))
    var alone = machine()
    _ = alone.start(now: at(0))
    _ = alone.handle(.notFound, now: at(1))
    #expect(alone.handle(.lockUnavailable, now: at(2)) == .finish(.alone))
  }

  @Test("a holder that never finishes: the wait ends at its deadline, its last timer cut short")
  func deadline() {
    var wait = machine(deadline: 500)
    _ = wait.start(now: at(0))
    var now = 0
    var action = wait.handle(.notFound, now: at(now))
    var looks = 1
    while case .tryLock = action {
      action = wait.handle(.lockBusy, now: at(now))
      guard case .wait(let until) = action else { break }
      #expect(until <= at(500), "never past the deadline")
      now = Int((until - t0) / .milliseconds(1))
      action = wait.handle(.timer, now: until)
      if action == .lookUp {
        looks += 1
        action = wait.handle(.notFound, now: until)
      }
    }
    #expect(action == .finish(.timedOut))
    #expect(looks == 3, "at 0, 200 and 400 ms")
    var late = machine(deadline: 0)
    #expect(late.start(now: at(0)) == .finish(.timedOut))
  }

  @Test("a cancel ends the wait whatever it is doing; an unexpected event never waits")
  func cancel() {
    for events in [[], [FleetWaitMachine.Event.notFound], [.notFound, .lockBusy]] {
      var wait = machine()
      _ = wait.start(now: at(0))
      for event in events { _ = wait.handle(event, now: at(1)) }
      #expect(wait.handle(.cancel, now: at(2)) == .finish(.cancelled))
    }
    var confused = machine()
    _ = confused.start(now: at(0))
    #expect(confused.handle(.timer, now: at(1)) == .finish(.timedOut))
  }
}
