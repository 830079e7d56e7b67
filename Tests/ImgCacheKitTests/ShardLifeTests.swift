import Testing

@testable import ImgCacheFleet

/// A shard's life in a worker's hands, fed events: no Redis, no clock, no sleep.
@Suite("Shard life: renewed, finished, given back, lost, cancelled")
struct ShardLifeTests {
  func life() -> ShardLife { ShardLife(lease: .seconds(3)) }

  @Test("renewed every third of the lease while held; a failed renewal waits for the next")
  func renewals() {
    var shard = life()
    #expect(shard.first == .wait(.seconds(1)))
    #expect(shard.handle(.timer) == .renew)
    #expect(shard.handle(.renewed(held: true, cancelled: false)) == .wait(.seconds(1)))
    #expect(shard.handle(.timer) == .renew)
    #expect(shard.handle(.renewalFailed) == .wait(.seconds(1)))
    #expect(shard.handle(.prefetchEnded(cancelled: false)) == .finish)
    #expect(shard.handle(.timer) == .none, "no renewal after the end")
  }

  @Test("a lease taken over stops the prefetch, and the shard is left to the other worker")
  func lost() {
    var shard = life()
    _ = shard.handle(.timer)
    #expect(shard.handle(.renewed(held: false, cancelled: false)) == .stopPrefetch)
    #expect(shard.handle(.timer) == .none)
    #expect(shard.handle(.prefetchEnded(cancelled: true)) == .end(.lost))
  }

  @Test("the job's cancel stops the prefetch; the worker says the job was cancelled")
  func jobCancelled() {
    var shard = life()
    _ = shard.handle(.timer)
    #expect(shard.handle(.renewed(held: true, cancelled: true)) == .stopPrefetch)
    #expect(
      shard.handle(.prefetchEnded(cancelled: true))
        == .end(.stopped(givenBack: false, jobCancelled: true)))
  }

  @Test("a signal gives the shard back first; a give-back wins over a later renewal's news")
  func signal() {
    var shard = life()
    #expect(shard.handle(.signalled) == .giveBack)
    #expect(shard.handle(.renewed(held: false, cancelled: false)) == .none, "renewals are over")
    #expect(shard.handle(.gaveBack(true)) == .stopPrefetch)
    #expect(
      shard.handle(.prefetchEnded(cancelled: true))
        == .end(.stopped(givenBack: true, jobCancelled: false)))
    var failed = life()
    _ = failed.handle(.signalled)
    _ = failed.handle(.gaveBack(false))
    #expect(
      failed.handle(.prefetchEnded(cancelled: true))
        == .end(.stopped(givenBack: false, jobCancelled: false)), "the caller gives it back")
  }

  @Test("a prefetch that ends cancelled without a signal is not finished")
  func cancelledPrefetch() {
    var shard = life()
    #expect(
      shard.handle(.prefetchEnded(cancelled: true))
        == .end(.stopped(givenBack: false, jobCancelled: false)))
  }
}
