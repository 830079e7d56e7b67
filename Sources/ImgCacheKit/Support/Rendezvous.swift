import Synchronization

/// A channel from one producer to one consumer where each ``send(_:)`` waits until the consumer
/// has taken its element (back pressure: a consumer that stops reading holds the producer up).
/// ``finish()`` ends it: the consumer's ``next()`` then returns nil and a waiting send returns.
/// A cancelled send returns without delivering; a cancelled ``next()`` returns nil. Two sends,
/// or two receives, waiting at once break its contract and stop the process.
///
/// The semantics of swift-async-algorithms' `AsyncChannel` for one producer and one consumer,
/// written here because that package cost the binary 1.4 MB for this one type
/// (docs/architecture.md, Start-up).
///
/// Lock rule: `state` guards the waiting continuations and nothing else; every continuation is
/// resumed after the lock is released.
package final class Rendezvous<Element: Sendable>: Sendable {
  private struct State {
    /// A send waiting for the consumer: its element and its continuation.
    var sending: (element: Element, sent: CheckedContinuation<Void, Never>)?
    /// The consumer waiting for an element.
    var receiving: CheckedContinuation<Element?, Never>?
    var finished = false
    /// Those waiting for a send to wait (``sendWaits()``).
    var watchers = [CheckedContinuation<Void, Never>]()
  }

  private let state = Mutex(State())

  /// An open channel.
  package init() {}

  /// Hands `element` to the consumer; returns once it was taken, the channel finished or this
  /// task was cancelled (the element then dropped).
  package func send(_ element: Element) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
        let (receiver, watchers) = state.withLock {
          state -> (CheckedContinuation<Element?, Never>??, [CheckedContinuation<Void, Never>]) in
          if state.finished || Task.isCancelled { return (.some(nil), []) }
          if let receiver = state.receiving {
            state.receiving = nil
            return (.some(receiver), [])
          }
          precondition(state.sending == nil, "a Rendezvous has one producer: two sends at once")
          state.sending = (element, sent)
          defer { state.watchers = [] }
          return (.none, state.watchers)
        }
        for watcher in watchers { watcher.resume() }
        guard case .some(let waiting) = receiver else { return }
        waiting?.resume(returning: element)
        sent.resume()
      }
    } onCancel: {
      state.withLock { state in
        defer { state.sending = nil }
        return state.sending?.sent
      }?.resume()
    }
  }

  /// The next element sent; nil once the channel finished or this task was cancelled.
  package func next() async -> Element? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (received: CheckedContinuation<Element?, Never>) in
        let taken = state.withLock { state -> (Element, CheckedContinuation<Void, Never>)?? in
          if state.finished || Task.isCancelled { return .some(nil) }
          if let sending = state.sending {
            state.sending = nil
            return .some((sending.element, sending.sent))
          }
          precondition(state.receiving == nil, "a Rendezvous has one consumer: two at once")
          state.receiving = received
          return .none
        }
        guard case .some(let pair) = taken else { return }
        received.resume(returning: pair?.0)
        pair?.1.resume()
      }
    } onCancel: {
      state.withLock { state in
        defer { state.receiving = nil }
        return state.receiving
      }?.resume(returning: nil)
    }
  }

  /// Returns once a send waits for the consumer, or the channel finished: how a test sees a
  /// producer held up by a consumer that stopped reading, without a timed wait.
  package func sendWaits() async {
    await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
      let waits = state.withLock { state in
        if state.sending != nil || state.finished { return true }
        state.watchers.append(watcher)
        return false
      }
      if waits { watcher.resume() }
    }
  }

  /// Ends the channel: a waiting consumer gets nil, a waiting send returns, and every later
  /// call returns at once.
  package func finish() {
    let (sending, receiving, watchers) = state.withLock { state in
      state.finished = true
      defer { (state.sending, state.receiving, state.watchers) = (nil, nil, []) }
      return (state.sending?.sent, state.receiving, state.watchers)
    }
    sending?.resume()
    receiving?.resume(returning: nil)
    for watcher in watchers { watcher.resume() }
  }
}
