import Testing

@testable import ImgCachePipeline

/// One piece of work a key at a time: the downloads in flight and the robots.txt files being
/// fetched share it.
@Suite("Single flight: a leader, its followers, a value kept for late ones, a follower that leaves")
struct SingleFlightTests {
  @Test("the first caller leads, the others follow and take its value, waiting or late")
  func leadAndFollow() async {
    let flights = SingleFlight<String, Int>()
    #expect(flights.join("a"))
    #expect(!flights.join("a") && !flights.join("a"), "two followers joined")
    #expect(flights.isLeading("a"))
    async let waiting = flights.value(of: "a")
    // The other follower joined and takes the value only after the leader finished.
    await Task.yield()
    flights.finish("a", with: 7)
    #expect(!flights.isLeading("a"))
    #expect(await waiting == 7)
    #expect(await flights.value(of: "a") == 7, "kept for the follower that joined")
    #expect(flights.join("a"), "taken by all: the next caller leads anew")
    flights.finish("a", with: 8)
  }

  @Test("a finished flight nobody joined is gone at once; a follower that leaves unpins it")
  func leave() async {
    let flights = SingleFlight<String, Int?>()
    #expect(flights.join("alone"))
    flights.finish("alone", with: 1)
    #expect(flights.join("alone"), "no follower: nothing kept")
    flights.finish("alone", with: nil)
    #expect(flights.join("o"))
    #expect(!flights.join("o"))
    flights.leave("o")
    flights.finish("o", with: 2)
    #expect(flights.join("o"), "the follower left: the value is not kept for it")
    flights.finish("o", with: nil)
    #expect(await flights.value(of: "never joined") == nil)
  }
}
