import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheSupport

/// Taking a lock others hold for a moment (``MomentaryLock``): its decisions fed by hand, then
/// on real `flock` locks.
@Suite("A momentary lock: tried a bounded number of times, then given up")
struct MomentaryLockTests {
  @Test("a held lock is tried again until the tries are spent; an interrupted try counts")
  func decisions() {
    let lock = MomentaryLock(tries: 3, step: 250)
    #expect(lock.next(afterTry: 1, failedWith: EWOULDBLOCK) == .retry(afterMicroseconds: 250))
    #expect(lock.next(afterTry: 2, failedWith: EINTR) == .retry(afterMicroseconds: 250))
    #expect(lock.next(afterTry: 3, failedWith: EWOULDBLOCK) == .busy)
    #expect(lock.next(afterTry: 1, failedWith: EBADF) == .failed(EBADF))
    let once = MomentaryLock(tries: 0, step: 250)
    #expect(once.tries == 1 && once.next(afterTry: 1, failedWith: EWOULDBLOCK) == .busy)
  }

  @Test("a lock held by another description is busy; released, it is taken; a bad one fails")
  func flocks() throws {
    let directory = TemporaryDirectory()
    let path = try directory.write("lock", [])
    let holder = open(path, O_RDWR | O_CLOEXEC)
    let taker = open(path, O_RDWR | O_CLOEXEC)
    defer { close(holder); close(taker) }
    #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
    let lock = MomentaryLock(tries: 2, step: 1)
    #expect(lock.take(taker) == .busy)
    #expect(flock(holder, LOCK_UN) == 0)
    #expect(lock.take(taker) == .taken)
    #expect(lock.take(-1) == .failed(EBADF))
  }
}
