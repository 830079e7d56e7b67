import Foundation
import Synchronization
import Testing

@testable import ImgCachePipeline

/// A prefetch's clock moved by the test's hand: its time moves only by ``advance(by:)``, and
/// each timer set is kept, in order, until the test fires it.
final class ManualClock: PrefetchClock {
  private struct State {
    var now = ContinuousClock.now
    var timers = [@Sendable () -> Void]()
    var watchers = CountWaiters()
  }

  private let state = Mutex(State())

  func now() -> ContinuousClock.Instant { state.withLock { $0.now } }

  func advance(by duration: Duration) { state.withLock { $0.now += duration } }

  /// Keeps `work` as the next timer (its deadline is the test's to choose).
  func setTimer(at deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () -> Void) {
    let reached = state.withLock { state in
      state.timers.append(work)
      return state.watchers.reached(state.timers.count)
    }
    for waiter in reached { waiter.resume() }
  }

  /// Returns once `count` timers (or more) have been set.
  func waitFor(_ count: Int) async {
    await withCheckedContinuation { waiter in
      let kept = state.withLock { $0.watchers.wait(for: count, current: $0.timers.count, waiter) }
      if !kept { waiter.resume() }
    }
  }

  /// Fires timer number `index` (from 0, in the order they were set).
  func fire(_ index: Int) {
    let work = state.withLock { $0.timers[index] }
    work()
  }

  /// Fires every timer set so far (a timer fired twice finds its wait over).
  func fireAll() {
    for work in state.withLock({ $0.timers }) { work() }
  }
}

/// The prefetch's inbox: a wait for arrivals, its deadline, and a timer that fires late. Its
/// clock and timers move by the test's hand, never by time.
@Suite("The prefetch's inbox: waits, deadlines and stale timers")
struct FinishedDownloadsTests {
  let result = FetchResult(
    url: "http://a.example/x", key: "http://a.example/x", outcome: .success(.offlineMiss),
    bytes: 0, variant: nil)

  @Test("a wait for arrivals ends at its deadline, and its timer never ends a later wait")
  func arrivalDeadlines() async {
    let timers = ManualClock()
    let inbox = FinishedDownloads(clock: timers)
    let now = timers.now()
    #expect(await inbox.take(before: now - .seconds(1)).isEmpty, "a deadline passed: at once")
    async let expired = inbox.take(before: now + .seconds(60))
    await timers.waitFor(1)
    timers.fire(0)
    #expect(await expired.isEmpty)
    // Ended by an arrival before its deadline: its timer, fired later, finds another wait.
    async let first = inbox.take(before: now + .seconds(60))
    await timers.waitFor(2)
    inbox.add(result)
    #expect(await first.results.count == 1)
    async let second = inbox.take(before: now + .seconds(60))
    await timers.waitFor(3)
    timers.fire(1)
    inbox.add(result)
    #expect(await second.results.count == 1, "a stale timer ended the wait")
  }

  @Test("what arrived before a wait is taken at once; a nudge with nothing ends the next wait")
  func arrivedBefore() async {
    let timers = ManualClock()
    let inbox = FinishedDownloads(clock: timers)
    inbox.add(result)
    #expect(await inbox.take(before: timers.now() + .seconds(60)).results.count == 1)
    inbox.receive([])
    #expect(await inbox.take().isEmpty, "the transport's nudge: the producer looks again")
    async let waited = inbox.take(before: timers.now() + .seconds(60))
    await timers.waitFor(1)
    inbox.add(result)
    #expect(await waited.results.count == 1)
  }
}
