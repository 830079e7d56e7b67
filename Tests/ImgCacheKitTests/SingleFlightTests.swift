import Foundation
import Testing

@testable import ImgCachePipeline

/// One piece of work a key at a time: the downloads in flight and the robots.txt files being
/// fetched share it.
@Suite("Single flight: a leader, its followers, a value kept for late ones, a follower that leaves")
struct SingleFlightTests {
  /// A table held where a task can reach it, as its owners hold theirs.
  final class Owner<Value: Sendable>: Sendable {
    let flights = SingleFlight<String, Value>()

    func join(_ key: String) -> Bool { flights.join(key) }
    func isLeading(_ key: String) -> Bool { flights.isLeading(key) }
    func value(of key: String) async -> Value? { await flights.value(of: key) }
    func leave(_ key: String) { flights.leave(key) }
    func waiting(on key: String) -> Int { flights.waiting(on: key) }
    func finish(_ key: String, with value: Value, kept: Bool = true) {
      flights.finish(key, with: value, keptForLateFollowers: kept)
    }
  }

  @Test("the first caller leads, the others follow and take its value, waiting or late")
  func leadAndFollow() async {
    let owner = Owner<Int>()
    #expect(owner.join("a"))
    #expect(!owner.join("a") && !owner.join("a"), "two followers joined")
    #expect(owner.isLeading("a"))
    async let waiting = owner.value(of: "a")
    // The first follower waits before the leader finishes; the other asks only after.
    while owner.waiting(on: "a") == 0 { await Task.yield() }
    owner.finish("a", with: 7)
    #expect(!owner.isLeading("a"))
    #expect(await waiting == 7)
    #expect(await owner.value(of: "a") == 7, "kept for the follower that joined")
    #expect(owner.join("a"), "taken by all: the next caller leads anew")
    owner.finish("a", with: 8)
  }

  @Test("a finished flight nobody joined is gone at once; a follower that leaves unpins it")
  func leave() async {
    let owner = Owner<Int?>()
    #expect(owner.join("alone"))
    owner.finish("alone", with: 1)
    #expect(owner.join("alone"), "no follower: nothing kept")
    owner.finish("alone", with: nil)
    #expect(owner.join("o"))
    #expect(!owner.join("o"))
    owner.leave("o")
    owner.finish("o", with: 2)
    #expect(owner.join("o"), "the follower left: the value is not kept for it")
    owner.finish("o", with: nil)
    #expect(await owner.value(of: "never joined") == nil)
  }

  @Test("a value not kept for late followers: they find no flight, the next caller leads anew")
  func notKept() async {
    let owner = Owner<Int>()
    #expect(owner.join("n"))
    #expect(!owner.join("n"), "a follower joined; it asks later")
    owner.finish("n", with: 3, kept: false)
    #expect(owner.join("n"), "nothing kept: the next caller leads")
    owner.finish("n", with: 4)
    #expect(await owner.value(of: "n") == nil, "the late follower finds no flight")
  }

  @Test("a robots.txt fetch that got nothing keeps nothing: the next caller fetches again")
  func robotsNothingKept() {
    let book = RobotsBook()
    let (origin, now) = ("https://a.example", Date())
    guard case .lead = book.ask(origin, at: now) else { return #expect(Bool(false)) }
    guard case .follow = book.ask(origin, at: now) else { return #expect(Bool(false)) }
    // The leader was cancelled; its follower has joined but not yet asked for the file.
    book.finish(origin, with: nil)
    guard case .lead = book.ask(origin, at: now) else {
      return #expect(Bool(false), "a caller followed a fetch that got nothing")
    }
    book.finish(origin, with: nil)
  }
}
