import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheFleet

/// The fleet locks' group commit (docs/fleet.md, Connections), fed by hand: who sends, what a
/// batch holds, who sends next, a caller that gives up. And on a real server: many callers at
/// once, each answered once.
@Suite("Fleet lock batches: one sender at a time, the rest in the next batch")
struct FleetLockBatchesTests {
  @Test("the first caller sends; those meanwhile wait and the oldest sends the next batch")
  func leaders() {
    var batches = FleetLockBatches()
    let (first, leads) = batches.attempt("a")
    #expect(leads)
    let step1 = batches.batch()
    #expect(step1 == .init(releases: [], attempts: [.init(ticket: first, name: "a")]))
    let (second, secondLeads) = batches.attempt("b")
    let (third, _) = batches.attempt("c")
    #expect(!secondLeads)
    let sendsNow = batches.release("x")
    #expect(!sendsNow, "a batch is on its way: the release waits for the next")
    let step2 = batches.sent()
    #expect(step2 == .lead(second))
    let step3 = batches.batch()
    #expect(
      step3
        == .init(
          releases: ["x"],
          attempts: [.init(ticket: second, name: "b"), .init(ticket: third, name: "c")]))
    let step4 = batches.sent()
    #expect(step4 == .idle && !batches.isSending)
    let sendsAtOnce = batches.release("y")
    #expect(sendsAtOnce, "nothing on its way: sent at once")
    let step5 = batches.batch()
    #expect(step5 == .init(releases: ["y"], attempts: []))
    let step6 = batches.sent()
    #expect(step6 == .idle)
  }

  @Test("only releases left after a batch: a task sends them")
  func releasesAlone() {
    var batches = FleetLockBatches()
    let (_, _) = batches.attempt("a")
    _ = batches.batch()
    _ = batches.release("x")
    let step7 = batches.sent()
    #expect(step7 == .sendReleases && batches.isSending)
    let step8 = batches.batch()
    #expect(step8 == .init(releases: ["x"], attempts: []))
    let step9 = batches.sent()
    #expect(step9 == .idle)
  }

  @Test("a caller that gives up is withdrawn while it waits, never once sent or told to lead")
  func withdraw() {
    var batches = FleetLockBatches()
    let (first, _) = batches.attempt("a")
    _ = batches.batch()
    let (second, _) = batches.attempt("b")
    let (third, _) = batches.attempt("c")
    let (onItsWay, waiting) = (batches.withdraw(first), batches.withdraw(third))
    #expect(!onItsWay, "on its way: its answer comes")
    #expect(waiting)
    let step10 = batches.sent()
    #expect(step10 == .lead(second))
    let leaderWithdrawn = batches.withdraw(second)
    #expect(!leaderWithdrawn, "told to lead: it must")
    let step11 = batches.batch()
    #expect(step11 == .init(releases: [], attempts: [.init(ticket: second, name: "b")]))
    let step12 = batches.sent()
    #expect(step12 == .idle)
  }

  @Test("a batch holds at most 256 names, the oldest attempt always; the rest go in the next")
  func largest() {
    var batches = FleetLockBatches()
    let (_, _) = batches.attempt("first")
    _ = batches.batch()
    for index in 0..<300 { _ = batches.attempt("k\(index)") }
    guard case .lead = batches.sent() else {
      Issue.record("no leader")
      return
    }
    let full = batches.batch()
    #expect(full.attempts.count == FleetLockBatches.largest)
    guard case .lead = batches.sent() else {
      Issue.record("no leader for the rest")
      return
    }
    let rest = batches.batch()
    #expect(rest.attempts.count == 300 - FleetLockBatches.largest)
    _ = batches.sent()
    // Releases never crowd the sender's own attempt out: half the room at most.
    let (sender, _) = batches.attempt("mine")
    for index in 0..<400 { _ = batches.release("r\(index)") }
    let mixed = batches.batch()
    #expect(mixed.attempts.first?.ticket == sender)
    #expect(mixed.releases.count == FleetLockBatches.largest - 1)
  }

  @Test("64 callers at once on one connection: each key held once, busy for another machine")
  func concurrentCallers() async throws {
    let stores = RemoteStores(redis: 1)
    let url = "redis://127.0.0.1:\(stores.redis[0].port)"
    let (mine, theirs) = (
      try RedisFleetLocks(queue: url, remote: []), try RedisFleetLocks(queue: url, remote: [])
    )
    let names = await withTaskGroup(of: String?.self) { group in
      for index in 0..<64 {
        group.addTask {
          guard case .held(let name) = mine.attempt(key: "https://a.example/\(index % 32)")
          else { return nil }
          return name
        }
      }
      var names = [String]()
      for await name in group { if let name { names.append(name) } }
      return names
    }
    #expect(names.count == 32 && Set(names).count == 32, "each key held once: \(names.count)")
    #expect(theirs.attempt(key: "https://a.example/7") == .busy)
    for name in names { mine.release(name) }
    for _ in 0..<200 where theirs.isHeld(key: "https://a.example/31") != false { usleep(5_000) }
    guard case .held = theirs.attempt(key: "https://a.example/31") else {
      Issue.record("not let go")
      return
    }
  }
}
