import FoundationEssentials
import Glibc

/// Which queued transfer may start now, host by host: the download loop's admission, as a
/// plain value with no I/O and no clock (time is passed in). Per host it keeps the transfers
/// running, a pause (a 429 or 503's `Retry-After`, else an exponential backoff), a refusal
/// (a `Retry-After` past `retry_after_max`: the host's transfers fail at once as
/// `rate_limited`), an AIMD window (a 429 halves the transfers the host had running, down to
/// 1; each window of successes grows it by one) and the earliest next
/// start of its rate; and one overall rate. A paused host never holds up another: the loop
/// asks for each waiting transfer in turn and starts the first one admitted. See
/// docs/design.md, Politeness.
package struct HostScheduler: Sendable {
  package typealias Instant = ContinuousClock.Instant

  /// The limits, from ``TransferOptions``.
  package struct Limits: Sendable, Equatable {
    /// Transfers at once, over all hosts.
    package var maxConcurrent: Int
    /// Transfers at once to one host; 0: none of its own.
    package var maxPerHost: Int
    /// Requests started a second to one host; 0: no rate.
    package var ratePerHost: Double
    /// Requests started a second over all hosts; 0: no rate.
    package var rate: Double
    /// The longest `Retry-After` waited for, in seconds; a longer one refuses the host.
    package var retryAfterMax: TimeInterval
    /// A host's first pause after a 429 or 503 without `Retry-After`, in seconds; each
    /// throttle in a row doubles it, up to `retryAfterMax` — never below itself.
    package var backoff: TimeInterval
    /// Pauses of one host in a row, with no answer between, before it is abandoned (its
    /// transfers fail at once as `rate_limited` for the rest of the run); 0: never.
    package var throttleLimit: Int

    /// The limits `options` set.
    package init(_ options: TransferOptions) {
      maxConcurrent = max(1, options.maxConcurrent)
      maxPerHost = options.maxPerHost
      ratePerHost = options.ratePerHost
      rate = options.rate
      retryAfterMax = options.retryAfterMax
      backoff = options.retryDelay
      throttleLimit = options.throttleLimit
    }

    /// `retryAfterMax` as a duration: the longest pause waited for, whoever heard it (this
    /// process, another of the cache, the fleet). A NaN or negative cap is none.
    package var pauseCap: Duration {
      .seconds(retryAfterMax > 0 ? min(retryAfterMax, RetryAfter.longest) : 0)
    }
  }

  /// Whether a transfer for a host may start.
  package enum Admission: Equatable, Sendable {
    /// Now.
    case start
    /// Not before `until`; nil: not before a transfer ends (no slot, or the host's window).
    case wait(until: Instant?)
    /// Never before `until`, past the cap: the transfer fails now as `rate_limited`.
    case refuse(until: Instant)
    /// Never in this run: the host throttled past `throttleLimit`; the transfer fails now as
    /// `rate_limited`.
    case abandon
  }

  /// How a transfer ended, as far as its host's politeness goes.
  package enum Ending: Equatable, Sendable {
    /// An answer that is not a throttle (a 404 too).
    case answered
    /// A 429 or 503, with the wait its `Retry-After` asks for (seconds), if it had one.
    case throttled(status: Int, retryAfter: TimeInterval?)
    /// No answer (a network failure, a cancel): nothing learnt of the host.
    case unanswered
  }

  /// What becomes of a throttled transfer.
  package enum Verdict: Equatable, Sendable {
    /// It ends as it is.
    case proceed
    /// It waits for its host's pause to end, then starts again.
    case retry
    /// Its host asked for a wait past the cap: it fails as `rate_limited`.
    case refuse(until: Instant)
    /// Its host throttled past `throttleLimit`: it fails as `rate_limited`, and so does every
    /// later transfer for the host.
    case abandon
  }

  struct Host: Sendable {
    var active = 0
    var pausedUntil: Instant?
    var refusedUntil: Instant?
    /// Throttles without `Retry-After` in a row: the backoff's exponent.
    var throttles = 0
    /// Pauses in a row with no answer between (the throttles of one burst are one pause).
    var pauses = 0
    /// Throttled past the limit: no transfer before then (the rest of a prefetch; a long
    /// `job work` asks again after ``abandonment``).
    var abandonedUntil: Instant?
    /// The AIMD window: transfers at once allowed; nil when no 429 narrowed it.
    var window: Int?
    /// Successes since the window last grew.
    var successes = 0
    /// The rate's earliest next start.
    var nextStart: Instant?
    /// The rate the host showed it admits, as the time between two starts: learned from its
    /// throttles (answers since the last pause ended, over the time to the end of the next).
    var learned: Duration?
    /// Since when answers are counted toward ``learned``, and how many came.
    var cycleStart: Instant?
    var cycleAnswers = 0
    /// Answers since the learned rate last grew.
    var sinceSpeedUp = 0

    /// Whether it holds nothing worth keeping at `now`.
    func isSpent(at now: Instant) -> Bool {
      // A cycle counts a host's answers until it throttles: kept a minute after it began.
      active == 0 && throttles == 0 && pauses == 0 && window == nil && learned == nil
        && cycleStart.map { $0 + .seconds(60) <= now } ?? true
        && [pausedUntil, refusedUntil, nextStart, abandonedUntil].allSatisfy {
          $0.map { $0 <= now } ?? true
        }
    }
  }

  package let limits: Limits
  private(set) var hosts = [String: Host]()
  private(set) var active = 0
  private var nextStart: Instant?
  private var pruneAt = 1_024

  /// A scheduler with `limits` and no history.
  package init(_ limits: Limits) { self.limits = limits }

  /// Whether a transfer for `host` may start at `now`.
  package func admission(for host: String, now: Instant) -> Admission {
    let state = hosts[host]
    if let until = state?.abandonedUntil, until > now { return .abandon }
    if let until = state?.refusedUntil, until > now { return .refuse(until: until) }
    if let until = state?.pausedUntil, until > now { return .wait(until: until) }
    guard active < limits.maxConcurrent, (state?.active ?? 0) < capacity(of: state) else {
      return .wait(until: nil)
    }
    if let next = nextStart, next > now { return .wait(until: next) }
    if let next = state?.nextStart, next > now { return .wait(until: next) }
    return .start
  }

  /// When `host` is paused or refused until, if it is.
  package func pause(of host: String) -> (paused: Instant?, refused: Instant?) {
    (hosts[host]?.pausedUntil, hosts[host]?.refusedUntil)
  }

  /// Transfers at once `state`'s host may have: its own limit, narrowed by its window.
  private func capacity(of state: Host?) -> Int {
    min(ownLimit, state?.window ?? ownLimit)
  }

  /// Transfers at once a host may have of its own: `max_per_host`, else `jobs`.
  private var ownLimit: Int { limits.maxPerHost > 0 ? limits.maxPerHost : limits.maxConcurrent }

  /// Notes a transfer for `host` started at `now` (admitted by ``admission(for:now:)``).
  package mutating func start(_ host: String, now: Instant) {
    active += 1
    var state = hosts[host] ?? Host()
    state.active += 1
    if state.cycleStart == nil { state.cycleStart = now }
    let spacing = [Self.interval(limits.ratePerHost), state.learned].compactMap { $0 }.max()
    if let spacing { state.nextStart = now + spacing }
    hosts[host] = state
    if let interval = Self.interval(limits.rate) { nextStart = now + interval }
  }

  /// Learns the rate `state`'s host admits from a throttle at `now` whose pause ends at
  /// `resumes`: the answers since the cycle began, over the time from then to `resumes` (a
  /// bucket emptied and refilled); a new cycle begins when the pause ends.
  private func learn(_ state: inout Host, now: Instant, resumes: Instant) {
    if let start = state.cycleStart, state.cycleAnswers > 0, resumes > start {
      let spacing = (resumes - start) / state.cycleAnswers
      state.learned = min(spacing, .seconds(10))
    }
    (state.cycleStart, state.cycleAnswers) = (resumes, 0)
  }

  /// A second's worth of answers at the learned rate without a throttle: the rate grows by one
  /// request a second (the additive increase; a throttle relearns it).
  private func speedUp(_ state: inout Host) {
    guard let learned = state.learned else { return }
    state.sinceSpeedUp += 1
    let perSecond = Duration.seconds(1) / learned
    guard Double(state.sinceSpeedUp) >= max(1, perSecond.rounded(.down)) else { return }
    state.sinceSpeedUp = 0
    let faster = Duration.seconds(1) / (perSecond + 1)
    state.learned = faster <= .milliseconds(1) ? nil : faster
  }

  /// The time between two starts at `rate` a second: nil for no rate (0, or not a number), at
  /// most a day (a rate set in code may be any `Double`).
  static func interval(_ rate: Double) -> Duration? {
    guard rate > 0 else { return nil }
    return .seconds(min(1 / rate, 86_400))
  }

  /// Notes a transfer for `host` ended at `now` as `ending`; says what becomes of it.
  package mutating func end(_ host: String, _ ending: Ending, now: Instant) -> Verdict {
    active = max(0, active - 1)
    var state = hosts[host] ?? Host()
    // What ran at once when it ended, this one included: what a 429 halves.
    let running = min(capacity(of: state), max(1, state.active))
    state.active = max(0, state.active - 1)
    var verdict = Verdict.proceed
    switch ending {
    case .unanswered: break
    case .answered:
      (state.throttles, state.pauses) = (0, 0)
      state.cycleAnswers += 1
      speedUp(&state)
      if let window = state.window {
        state.successes += 1
        if state.successes >= window {
          state.successes = 0
          state.window = window + 1 >= ownLimit ? nil : window + 1
        }
      }
    case .throttled(let status, let retryAfter):
      verdict = throttled(
        &state, status: status, retryAfter: retryAfter, running: running, now: now)
    }
    hosts[host] = state.isSpent(at: now) ? nil : state
    if hosts.count >= pruneAt { prune(now: now) }
    return verdict
  }

  /// How long a host throttled past `throttleLimit` is abandoned.
  static let abandonment = Duration.seconds(600)

  /// A throttle of `state`'s host at `now`: its window halved (a 429), then a pause — the
  /// wait its `Retry-After` asks for, else an exponential backoff from `backoff` — or a
  /// refusal past the cap, or, past `throttleLimit` pauses in a row, the host abandoned.
  private func throttled(
    _ state: inout Host, status: Int, retryAfter: TimeInterval?, running: Int, now: Instant
  ) -> Verdict {
    state.successes = 0
    // Too many requests: the host's transfers at once halve (down to 1), whatever else it
    // says — once a burst: the 429s of requests sent before the pause began do not halve it
    // again, nor count as another pause.
    let pausedAlready = state.pausedUntil.map { $0 > now } ?? false
    if status == 429 && !pausedAlready { state.window = max(1, running / 2) }
    if !pausedAlready { state.pauses += 1 }
    if limits.throttleLimit > 0 && state.pauses > limits.throttleLimit {
      state.abandonedUntil = now + Self.abandonment
      state.pauses = 0
      return .abandon
    }
    if let retryAfter, retryAfter > limits.retryAfterMax {
      let until = now + .seconds(min(retryAfter, RetryAfter.longest))
      state.refusedUntil = max(state.refusedUntil ?? until, until)
      return .refuse(until: until)
    }
    let wait: TimeInterval
    if let retryAfter {
      wait = retryAfter
    } else {
      let doubled = limits.backoff * pow(2, Double(min(state.throttles, 62)))
      wait = max(limits.backoff, min(doubled, limits.retryAfterMax))
      state.throttles += 1
    }
    let until = now + .seconds(min(max(0, wait), RetryAfter.longest))
    learn(&state, now: now, resumes: until)
    state.pausedUntil = max(state.pausedUntil ?? until, until)
    return .retry
  }

  /// Forgets the hosts that hold nothing any more, so memory follows the hosts in play, not
  /// every host ever asked.
  private mutating func prune(now: Instant) {
    hosts = hosts.filter { !$0.value.isSpent(at: now) }
    pruneAt = max(1_024, 2 * hosts.count)
  }
}
