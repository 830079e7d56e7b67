import Synchronization
import Testing

@testable import ImgCacheKit

/// The prefetch's channel (``Rendezvous``): order, back pressure, finish and cancellation.
@Suite(.timeLimit(.minutes(1)))
struct RendezvousTests {
  @Test func deliversEveryElementInOrder() async {
    let channel = Rendezvous<Int>()
    let producer = Task {
      for value in 0..<1_000 { await channel.send(value) }
      channel.finish()
    }
    var received = [Int]()
    while let value = await channel.next() { received.append(value) }
    await producer.value
    #expect(received == Array(0..<1_000))
  }

  @Test func aSendReturnsOnlyOnceItsElementWasTaken() async {
    let channel = Rendezvous<Int>()
    let taken = Atomic<Int>(0)
    let producer = Task {
      await channel.send(1)
      // The consumer marked its element before taking the next: a send that returned before
      // its element was taken would see 0 here.
      let seen = taken.load(ordering: .sequentiallyConsistent)
      await channel.send(2)
      return seen
    }
    taken.store(1, ordering: .sequentiallyConsistent)
    #expect(await channel.next() == 1)
    #expect(await channel.next() == 2)
    #expect(await producer.value == 1)
  }

  @Test func aCancelledSendReturnsAndDropsItsElement() async {
    let channel = Rendezvous<String>()
    let producer = Task { await channel.send("dropped") }
    producer.cancel()
    await producer.value
    channel.finish()
    #expect(await channel.next() == nil)
  }

  @Test func finishEndsAWaitingConsumerAndEveryLaterCall() async {
    let channel = Rendezvous<Int>()
    let consumer = Task { await channel.next() }
    channel.finish()
    #expect(await consumer.value == nil)
    await channel.send(3)
    #expect(await channel.next() == nil)
  }

  @Test func finishReleasesAWaitingSend() async {
    let channel = Rendezvous<Int>()
    let producer = Task { await channel.send(4) }
    channel.finish()
    await producer.value
    #expect(await channel.next() == nil)
  }

  @Test func aCancelledConsumerGetsNil() async {
    let channel = Rendezvous<Int>()
    let consumer = Task { await channel.next() }
    consumer.cancel()
    #expect(await consumer.value == nil)
  }
}
