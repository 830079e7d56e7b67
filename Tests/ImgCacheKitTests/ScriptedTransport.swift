import Foundation
import Synchronization

@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// An in-process ``Transport`` for tests of the pipeline: each URL is answered as its script
/// says, at a time on a clock the test moves by hand (``advance(by:)``). Nothing runs on its
/// own: a reply due at once is delivered within `submit`; one due later when the clock passes
/// it. Every request is kept, in the order it came, for the test to check.
///
/// Lock rule: `state` guards the tables only; waiters are resumed and sinks called after it is
/// released.
final class ScriptedTransport: Transport {
  typealias Outcome = Result<DownloadResponse, CacheError>

  /// One answer: a body with its status and headers, or a failure, after a delay.
  struct Reply: Sendable {
    var status = 200
    var body = Data()
    var contentType: String? = "image/png"
    var cacheControl: String?
    var etag: String?
    var failure: CacheError?
    var delay: Duration = .zero

    /// `body` with status 200, after `delay`.
    static func image(_ body: Data, after delay: Duration = .zero) -> Reply {
      Reply(body: body, delay: delay)
    }

    /// The transfer fails with `error`, after `delay`.
    static func failure(_ error: CacheError, after delay: Duration = .zero) -> Reply {
      Reply(failure: error, delay: delay)
    }

    /// The outcome for `request`.
    func outcome(for request: DownloadRequest) -> Outcome {
      if let failure { return .failure(failure) }
      var freshness = ResponseFreshness()
      freshness.cacheControl = cacheControl
      freshness.status = status
      return .success(
        DownloadResponse(
          status: status, file: nil, bytes: Int64(body.count), contentType: contentType,
          etag: etag, lastModified: nil, effectiveURL: request.url,
          sha256: SHA256.hex(of: body), freshness: freshness, body: body))
    }
  }

  /// A reply due at `at`; its outcome is made after the lock is let go.
  private struct Scheduled {
    var at: Duration
    var ticket: UInt64
    var reply: Reply
    var request: DownloadRequest
  }

  private struct State {
    var now = Duration.zero
    var nextTicket: UInt64 = 0
    var replies: [String: [Reply]]
    var fallback: Reply
    var requests = [DownloadRequest]()
    var submittedOn = [Bool]()
    var scheduled = [Scheduled]()
    var ready = [UInt64: Outcome]()
    var waiters = [UInt64: CheckedContinuation<Outcome, Never>]()
    var sinks = [UInt64: any DownloadSink]()
    var watchers = CountWaiters()
  }

  private let state: Mutex<State>

  /// A transport answering each URL in `replies` with its replies in turn (the last one
  /// again after that), and any other URL with `fallback`.
  init(_ replies: [String: [Reply]] = [:], fallback: Reply) {
    state = Mutex(State(replies: replies, fallback: fallback))
  }

  /// Every request submitted, in order.
  var requests: [DownloadRequest] { state.withLock { $0.requests } }

  /// Whether each submit ran on the engine's executor, in order.
  var submittedOn: [Bool] { state.withLock { $0.submittedOn } }

  /// Returns once `count` requests (or more) have been submitted.
  func waitForRequests(_ count: Int) async {
    await withCheckedContinuation { waiter in
      let kept = state.withLock { $0.watchers.wait(for: count, current: $0.requests.count, waiter) }
      if !kept { waiter.resume() }
    }
  }

  func submit(_ requests: [DownloadRequest]) -> [UInt64] { enqueue(requests, sink: nil) }

  func submit(_ requests: [DownloadRequest], into sink: any DownloadSink) -> [UInt64] {
    enqueue(requests, sink: sink)
  }

  private func enqueue(_ requests: [DownloadRequest], sink: (any DownloadSink)?) -> [UInt64] {
    let onEngine = EngineExecutor.isCurrent
    let (tickets, due, reached) = state.withLock {
      state -> ([UInt64], [Scheduled], [CheckedContinuation<Void, Never>]) in
      var tickets = [UInt64]()
      state.submittedOn.append(onEngine)
      for request in requests {
        state.nextTicket += 1
        let ticket = state.nextTicket
        tickets.append(ticket)
        state.requests.append(request)
        if let sink { state.sinks[ticket] = sink }
        var queue = state.replies[request.url] ?? [state.fallback]
        let reply = queue.first ?? state.fallback
        if queue.count > 1 { queue.removeFirst() }
        state.replies[request.url] = queue
        state.scheduled.append(
          Scheduled(at: state.now + reply.delay, ticket: ticket, reply: reply, request: request))
      }
      let reached = state.watchers.reached(state.requests.count)
      return (tickets, Self.takeDue(&state), reached)
    }
    deliver(due)
    for waiter in reached { waiter.resume() }
    return tickets
  }

  /// Moves the clock on by `duration`, delivering every reply due by then, in time order.
  func advance(by duration: Duration) {
    let due = state.withLock { state -> [Scheduled] in
      state.now += duration
      return Self.takeDue(&state)
    }
    deliver(due)
  }

  func result(of ticket: UInt64) async -> Outcome {
    await withTaskCancellationHandler {
      await withCheckedContinuation { waiter in
        let ready = state.withLock { state -> Outcome? in
          if let outcome = state.ready.removeValue(forKey: ticket) { return outcome }
          state.waiters[ticket] = waiter
          return nil
        }
        if let ready { waiter.resume(returning: ready) }
      }
    } onCancel: {
      let cancelled = state.withLock { state in Self.cancel(&state, tickets: [ticket]) }
      deliver(cancelled)
    }
  }

  func cancel(sink: any DownloadSink) {
    let cancelled = state.withLock { state in
      let tickets = Set(state.sinks.compactMap { $0.value === sink ? $0.key : nil })
      return Self.cancel(&state, tickets: tickets)
    }
    deliver(cancelled)
  }

  /// The scheduled replies of `tickets`, taken out as cancelled.
  private static func cancel(_ state: inout State, tickets: Set<UInt64>) -> [Scheduled] {
    var cancelled = [Scheduled]()
    for entry in state.scheduled where tickets.contains(entry.ticket) {
      var entry = entry
      (entry.at, entry.reply) = (state.now, .failure(CacheError(.cancelled, "cancelled")))
      cancelled.append(entry)
    }
    state.scheduled.removeAll { tickets.contains($0.ticket) }
    return cancelled
  }

  /// The replies due by now, in time order, taken out of the schedule.
  private static func takeDue(_ state: inout State) -> [Scheduled] {
    let now = state.now
    let due = state.scheduled.filter { $0.at <= now }.sorted {
      ($0.at, $0.ticket) < ($1.at, $1.ticket)
    }
    state.scheduled.removeAll { $0.at <= now }
    return due
  }

  /// Hands `due` to their sinks (together), their waiters, or keeps them for a later wait.
  private func deliver(_ due: [Scheduled]) {
    guard !due.isEmpty else { return }
    var sunk = [
      ObjectIdentifier: (sink: any DownloadSink, results: [(ticket: UInt64, result: Outcome)])
    ]()
    var resumed = [(CheckedContinuation<Outcome, Never>, Outcome)]()
    // Made before the lock is taken (a response hashes its body).
    let outcomes = due.map { (ticket: $0.ticket, outcome: $0.reply.outcome(for: $0.request)) }
    state.withLock { state in
      for entry in outcomes {
        if let sink = state.sinks.removeValue(forKey: entry.ticket) {
          sunk[ObjectIdentifier(sink), default: (sink, [])].results.append(
            (entry.ticket, entry.outcome))
        } else if let waiter = state.waiters.removeValue(forKey: entry.ticket) {
          resumed.append((waiter, entry.outcome))
        } else {
          state.ready[entry.ticket] = entry.outcome
        }
      }
    }
    for (_, batch) in sunk { batch.sink.receive(batch.results) }
    for (waiter, outcome) in resumed { waiter.resume(returning: outcome) }
  }
}
