import Foundation
import Testing

@testable import ImgCachePipeline

/// robots.txt's lead and follow, and what a fetch's answer means (docs/design.md,
/// Politeness), fed as events: no server, no index, no clock but the one given.
@Suite("Robots machine: lead, follow, ask again, and the policy of an answer")
struct RobotsMachineTests {
  let now = Date(timeIntervalSince1970: 1_000_000)
  let file = StoredRobots(rules: .allowAll, expires: Date(timeIntervalSince1970: 2_000_000))

  func failed(_ kind: CacheError.Kind, status: Int? = nil) -> RobotsMachine.Fetched {
    .failed(CacheError(kind, "HTTP \(status ?? 0)", url: nil, httpStatus: status))
  }

  /// The outcome and publication after leading to a fetch that came to `fetched`.
  func led(to fetched: RobotsMachine.Fetched) -> RobotsMachine.Action {
    var machine = RobotsMachine()
    #expect(machine.start() == .askBook)
    #expect(machine.handle(.asked(.lead)) == .readIndex)
    #expect(machine.handle(.index(nil)) == .fetch)
    return machine.handle(.fetched(fetched, now: now))
  }

  @Test("a file known here answers at once; the index's is handed to the book, not kept again")
  func knownAndIndexed() {
    var known = RobotsMachine()
    _ = known.start()
    #expect(known.handle(.asked(.known(file))) == .finish(.robots(file), publish: nil))
    var indexed = RobotsMachine()
    _ = indexed.start()
    _ = indexed.handle(.asked(.lead))
    #expect(
      indexed.handle(.index(file))
        == .finish(.robots(file), publish: .init(robots: file, record: false)))
  }

  @Test("a file's rules hold a day and are kept for every process")
  func fileFetched() throws {
    let action = led(to: .file(Data("User-agent: *\nDisallow: /private\n".utf8)))
    guard case .finish(.robots(let robots), let publish) = action else {
      Issue.record("\(action)")
      return
    }
    #expect(robots.expires == now + 86_400 && robots.unreachable == nil)
    #expect(robots.rules.deciding("/private/a")?.allows == false)
    #expect(publish == .init(robots: robots, record: true))
  }

  @Test("a 4xx allows everything for a day; a 5xx or no answer disallows for an hour, kept")
  func unavailableAndUnreachable() {
    let allowAll = StoredRobots(rules: .allowAll, expires: now + 86_400)
    #expect(
      led(to: failed(.httpStatus, status: 404))
        == .finish(.robots(allowAll), publish: .init(robots: allowAll, record: true)))
    for fetched in [failed(.httpStatus, status: 503), failed(.network)] {
      guard case .finish(.robots(let robots), let publish) = led(to: fetched) else {
        Issue.record("not an answer")
        continue
      }
      #expect(robots.rules == .disallowAll && robots.expires == now + 3_600)
      #expect(robots.unreachable != nil && publish?.record == true)
    }
  }

  @Test("a 429 disallows for an hour in this process only: never kept in the index")
  func throttled() {
    guard
      case .finish(.robots(let robots), let publish) = led(to: failed(.rateLimited, status: 429))
    else {
      Issue.record("not an answer")
      return
    }
    #expect(robots.rules == .disallowAll && robots.expires == now + 3_600)
    #expect(publish == .init(robots: robots, record: false))
  }

  @Test("a leader cancelled or failing locally hands its followers nothing and is refused")
  func leaderGetsNothing() {
    let local = CacheError(.localIO, "cannot create the cache")
    #expect(
      led(to: .local(local)) == .finish(.failed(local), publish: .init(robots: nil, record: false)))
    let cancelled = CacheError(.cancelled, "cancelled")
    #expect(
      led(to: .failed(cancelled))
        == .finish(.failed(cancelled), publish: .init(robots: nil, record: false)))
    var fetching = RobotsMachine()
    _ = fetching.start()
    _ = fetching.handle(.asked(.lead))
    _ = fetching.handle(.index(nil))
    guard case .finish(.failed, let publish) = fetching.handle(.cancel) else {
      Issue.record("not ended")
      return
    }
    #expect(publish == .init(robots: nil, record: false), "the followers are let go")
  }

  @Test("a follower whose leader got nothing asks again, then leads; at most eight turns")
  func followerAsksAgain() {
    var machine = RobotsMachine()
    _ = machine.start()
    #expect(machine.handle(.asked(.follow)) == .waitForLeader)
    #expect(machine.handle(.leaderGot(nil)) == .askBook)
    #expect(machine.handle(.asked(.lead)) == .readIndex)
    var patient = RobotsMachine()
    _ = patient.start()
    var asks = 1
    var action = patient.handle(.asked(.follow))
    while action == .waitForLeader {
      action = patient.handle(.leaderGot(nil))
      if action == .askBook {
        asks += 1
        action = patient.handle(.asked(.follow))
      }
    }
    #expect(asks == RobotsMachine.turns)
    guard case .finish(.failed(let error), nil) = action else {
      Issue.record("\(action)")
      return
    }
    #expect(error.kind == .cancelled)
    var follower = RobotsMachine()
    _ = follower.start()
    _ = follower.handle(.asked(.follow))
    #expect(follower.handle(.leaderGot(file)) == .finish(.robots(file), publish: nil))
  }

  @Test("a cancel before leading publishes nothing; an event out of place ends it")
  func cancelAndStray() {
    var asking = RobotsMachine()
    _ = asking.start()
    guard case .finish(.failed, nil) = asking.handle(.cancel) else {
      Issue.record("not ended")
      return
    }
    var stray = RobotsMachine()
    _ = stray.start()
    _ = stray.handle(.asked(.lead))
    guard case .finish(.failed, let publish) = stray.handle(.leaderGot(file)) else {
      Issue.record("not ended")
      return
    }
    #expect(publish == .init(robots: nil, record: false), "a leader's followers are let go")
  }
}
