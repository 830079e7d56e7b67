import Testing

@testable import ImgCacheTransport

/// A machine's view of the fleet's politeness, fed events on instants the test names: no
/// Redis, no clock, no sleep.
@Suite("Fleet table: reserved starts and pauses as events")
struct FleetTableTests {
  let t0 = ContinuousClock.now
  let interval: Int64 = 200_000_000

  func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

  @Test("a host without a rate: its pause looked up once, starts never wait for the fleet")
  func noRate() {
    var table = FleetTable()
    let first = table.admit("a", interval: nil, now: at(0))
    #expect(first.answer == .start(in: 0) && first.fetch == .pause(host: "a"))
    #expect(table.admit("a", interval: nil, now: at(1)).fetch == nil, "one lookup in flight")
    table.received("a", waits: [], paused: nil, now: at(5))
    #expect(table.admit("a", interval: nil, now: at(6)) == (.start(in: 0), nil))
  }

  @Test("a pause heard applies at once, voids reserved starts, and is never shortened")
  func pauses() {
    var table = FleetTable()
    _ = table.admit("a", interval: interval, now: at(0))
    table.received("a", waits: [0, interval, 2 * interval, 3 * interval], paused: nil, now: at(1))
    table.heard("a", wait: 3_000_000_000, now: at(2))
    table.heard("a", wait: 1_000_000_000, now: at(3))
    #expect(table.admit("a", interval: interval, now: at(2)).answer == .paused(for: 3_000_000_000))
    #expect(table.reserved["a"] == nil)
    #expect(table.admit("b", interval: nil, now: at(2)).answer == .start(in: 0), "its host only")
    // A day at most, whatever the message says.
    table.heard("c", wait: .max, now: at(0))
    #expect(table.admit("c", interval: nil, now: at(0)).answer == .paused(for: 86_400_000_000_000))
    // Past the pause: a batch asked again.
    let after = table.admit("a", interval: interval, now: at(3_002))
    #expect(after.answer == .pending)
    #expect(after.fetch == .starts(host: "a", interval: interval, count: FleetTable.batch))
  }

  @Test("starts come from a batch reserved ahead; the next batch is asked before it runs out")
  func batches() {
    var table = FleetTable()
    let first = table.admit("a", interval: interval, now: at(0))
    #expect(first.answer == .pending)
    #expect(first.fetch == .starts(host: "a", interval: interval, count: 4))
    #expect(table.admit("a", interval: interval, now: at(1)) == (.pending, nil), "one in flight")
    table.received("a", waits: [0, interval, 2 * interval, 3 * interval], paused: nil, now: at(10))
    #expect(table.admit("a", interval: interval, now: at(10)) == (.start(in: 0), nil))
    #expect(table.admit("a", interval: interval, now: at(10)) == (.start(in: 200_000_000), nil))
    // Two handed out, two left: the third's admission asks for the next batch.
    let third = table.admit("a", interval: interval, now: at(410))
    #expect(third.answer == .start(in: 0) && third.fetch != nil)
    #expect(table.admit("a", interval: interval, now: at(610)).answer == .start(in: 0))
    #expect(table.admit("a", interval: interval, now: at(620)) == (.pending, nil))
    // A start left unused past its life is not handed out.
    table.received("a", waits: [0], paused: nil, now: at(700))
    #expect(table.admit("a", interval: interval, now: at(1_800)).answer == .pending)
  }

  @Test("starts held past half an interval are let go, never taken together (they would burst)")
  func lateStarts() {
    var table = FleetTable()
    _ = table.admit("a", interval: interval, now: at(0))
    table.received("a", waits: [0, interval, 2 * interval, 3 * interval], paused: nil, now: at(0))
    #expect(table.admit("a", interval: interval, now: at(0)).answer == .start(in: 0))
    // Asked again only after 2.5 s: the three left are past their time; none is taken.
    let late = table.admit("a", interval: interval, now: at(2_500))
    #expect(late.answer == .pending)
    // Within half the interval a start is still taken; past it, not.
    table.received("a", waits: [0, interval], paused: nil, now: at(3_000))
    #expect(table.admit("a", interval: interval, now: at(3_099)).answer == .start(in: 0))
    #expect(table.admit("a", interval: interval, now: at(3_301)).answer == .pending)
    #expect(FleetTable.lateness(interval: interval) == .milliseconds(100))
    #expect(FleetTable.lateness(interval: 10_000_000_000) == FleetTable.reservationLife)
  }

  @Test("a failed fetch lets the next admission ask again; a paused reply is a pause")
  func failures() {
    var table = FleetTable()
    _ = table.admit("a", interval: interval, now: at(0))
    table.failed("a")
    #expect(table.admit("a", interval: interval, now: at(1)).fetch != nil)
    table.received("a", waits: [], paused: 2_000_000_000, now: at(2))
    #expect(table.admit("a", interval: interval, now: at(3)).answer == .paused(for: 1_999_000_000))
  }
}
