import Foundation
import Testing

@testable import ImgCacheTransport
@testable import ImgCacheUntrusted

/// The download loop's admission, host by host, on instants the test names: pauses, refusals,
/// backoff, AIMD windows and rates, over hundreds of hosts. No transport, no clock, no sleep.
@Suite("Host scheduler: pauses, windows and rates on a test clock")
struct HostSchedulerTests {
  let t0 = ContinuousClock.now

  func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .seconds(seconds) }

  func scheduler(
    jobs: Int = 8, perHost: Int = 0, ratePerHost: Double = 0, rate: Double = 0,
    retryAfterMax: TimeInterval = 60, retryDelay: TimeInterval = 1, throttleLimit: Int = 5
  ) -> HostScheduler {
    var options = TransferOptions()
    options.maxConcurrent = jobs
    options.maxPerHost = perHost
    options.ratePerHost = ratePerHost
    options.rate = rate
    options.retryAfterMax = retryAfterMax
    options.retryDelay = retryDelay
    options.throttleLimit = throttleLimit
    return HostScheduler(HostScheduler.Limits(options))
  }

  @Test("a 429 with Retry-After pauses its host until then, and no other host")
  func pauseOneHost() {
    var hosts = scheduler()
    hosts.start("a", now: at(0))
    #expect(hosts.end("a", .throttled(status: 429, retryAfter: 5), now: at(0)) == .retry)
    #expect(hosts.admission(for: "a", now: at(0)) == .wait(until: at(5)))
    #expect(hosts.admission(for: "a", now: at(4.999)) == .wait(until: at(5)))
    #expect(hosts.admission(for: "b", now: at(0)) == .start)
    #expect(hosts.admission(for: "a", now: at(5)) == .start)
    // A later, shorter Retry-After never shortens the pause.
    hosts.start("a", now: at(5))
    _ = hosts.end("a", .throttled(status: 503, retryAfter: 30), now: at(5))
    hosts.start("a", now: at(5))
    _ = hosts.end("a", .throttled(status: 503, retryAfter: 1), now: at(5))
    #expect(hosts.admission(for: "a", now: at(10)) == .wait(until: at(35)))
  }

  @Test("a Retry-After past retry_after_max refuses the host until then")
  func refusal() {
    var hosts = scheduler(retryAfterMax: 60)
    hosts.start("a", now: at(0))
    #expect(
      hosts.end("a", .throttled(status: 429, retryAfter: 3_600), now: at(0))
        == .refuse(until: at(3_600)))
    #expect(hosts.admission(for: "a", now: at(3_599)) == .refuse(until: at(3_600)))
    #expect(hosts.admission(for: "a", now: at(3_600)) == .start)
    #expect(hosts.admission(for: "b", now: at(1)) == .start)
  }

  @Test("without Retry-After the pause doubles with each throttle, capped; an answer resets it")
  func backoff() {
    var hosts = scheduler(retryAfterMax: 5)
    var now = 0.0
    for expected in [1.0, 2, 4, 5, 5] {
      hosts.start("a", now: at(now))
      _ = hosts.end("a", .throttled(status: 503, retryAfter: nil), now: at(now))
      #expect(hosts.admission(for: "a", now: at(now)) == .wait(until: at(now + expected)))
      now += expected
    }
    hosts.start("a", now: at(now))
    _ = hosts.end("a", .answered, now: at(now))
    hosts.start("a", now: at(now))
    _ = hosts.end("a", .throttled(status: 503, retryAfter: nil), now: at(now))
    #expect(hosts.admission(for: "a", now: at(now)) == .wait(until: at(now + 1)))
  }

  @Test("a backoff is never shorter than retry_delay, whatever retry_after_max says")
  func backoffFloor() {
    for cap in [0.0, 0.5] {
      var hosts = scheduler(retryAfterMax: cap, retryDelay: 1)
      hosts.start("a", now: at(0))
      #expect(hosts.end("a", .throttled(status: 429, retryAfter: nil), now: at(0)) == .retry)
      #expect(hosts.admission(for: "a", now: at(0.5)) == .wait(until: at(1)))
    }
  }

  @Test("a host that throttles past throttle_limit pauses in a row is abandoned (ten minutes)")
  func abandon() {
    var hosts = scheduler(throttleLimit: 3)
    var now = 0.0
    for retryAfter in [nil, 2.0, nil] as [TimeInterval?] {
      hosts.start("a", now: at(now))
      // A burst: the second 429 came from a request already out, and is not another pause.
      hosts.start("a", now: at(now))
      #expect(
        hosts.end("a", .throttled(status: 429, retryAfter: retryAfter), now: at(now)) == .retry)
      #expect(
        hosts.end("a", .throttled(status: 429, retryAfter: retryAfter), now: at(now)) == .retry)
      now += 10
    }
    hosts.start("a", now: at(now))
    #expect(hosts.end("a", .throttled(status: 503, retryAfter: nil), now: at(now)) == .abandon)
    #expect(hosts.admission(for: "a", now: at(now + 599)) == .abandon)
    #expect(hosts.admission(for: "a", now: at(now + 600)) == .start, "ten minutes at most")
    #expect(hosts.admission(for: "b", now: at(now)) == .start)
    // An answer between pauses starts the count again; 0 is no limit.
    for limit in [1, 0] {
      var other = scheduler(throttleLimit: limit)
      for step in 0..<6 {
        other.start("a", now: at(Double(step) * 10))
        let ending: HostScheduler.Ending =
          limit == 1 && step % 2 == 1 ? .answered : .throttled(status: 429, retryAfter: nil)
        #expect(other.end("a", ending, now: at(Double(step) * 10)) != .abandon)
      }
    }
  }

  @Test("a burst of 429s (requests already out when the first came) halves the window once")
  func oneHalvingABurst() {
    var hosts = scheduler(jobs: 8)
    #expect(fill(&hosts, "a", now: at(0)) == 8)
    for _ in 0..<8 { _ = hosts.end("a", .throttled(status: 429, retryAfter: 1), now: at(0.01)) }
    #expect(fill(&hosts, "a", now: at(2)) == 4)
  }

  /// Starts transfers to `host` at `now` while admitted; returns how many.
  func fill(_ hosts: inout HostScheduler, _ host: String, now: ContinuousClock.Instant) -> Int {
    var started = 0
    while hosts.admission(for: host, now: now) == .start {
      hosts.start(host, now: now)
      started += 1
    }
    return started
  }

  @Test("AIMD: a 429 without Retry-After halves the host's window down to 1; successes grow it")
  func aimd() {
    var hosts = scheduler(jobs: 8)
    var now = 0.0
    #expect(fill(&hosts, "a", now: at(now)) == 8)
    for expected in [4, 2, 1, 1] {
      // One of those running is throttled, the others end without an answer.
      let running = hosts.hosts["a"]?.active ?? 0
      _ = hosts.end("a", .throttled(status: 429, retryAfter: nil), now: at(now))
      for _ in 1..<running { _ = hosts.end("a", .unanswered, now: at(now)) }
      now += 100  // past the backoff's pause
      #expect(fill(&hosts, "a", now: at(now)) == expected, "window \(expected)")
    }
    // Grows by one per window of successes: 1 → 2 after one, → 3 after two more, …, then free.
    for window in 1..<8 {
      for _ in 0..<window { _ = hosts.end("a", .answered, now: at(now)) }
      #expect(fill(&hosts, "a", now: at(now)) == window + 1)
    }
    #expect(hosts.hosts["a"]?.window == nil)
  }

  @Test("a rate holds over every one-second window and reaches its bound")
  func rates() {
    // 8 hosts at 20/s each, and a loop that looks every millisecond for 10 s.
    var hosts = scheduler(jobs: 100, ratePerHost: 20)
    var starts = [String: [Double]]()
    for step in 0..<10_000 {
      let now = Double(step) / 1_000
      for host in (0..<8).map({ "h\($0)" }) where hosts.admission(for: host, now: at(now)) == .start
      {
        hosts.start(host, now: at(now))
        starts[host, default: []].append(now)
        _ = hosts.end(host, .answered, now: at(now))
      }
    }
    for (host, times) in starts {
      #expect(times.count >= 190, "\(host): \(times.count) in 10 s")
      for (index, time) in times.enumerated() {
        let inWindow = times[index...].prefix { $0 < time + 1 }.count
        #expect(inWindow <= 20, "\(host): \(inWindow) starts in the second from \(time)")
      }
    }
    // An overall rate holds across hosts.
    var overall = scheduler(jobs: 100, rate: 5)
    var count = 0
    for step in 0..<1_000 {
      for host in ["a", "b", "c"]
      where overall.admission(for: host, now: at(Double(step) / 1_000)) == .start {
        overall.start(host, now: at(Double(step) / 1_000))
        count += 1
      }
    }
    #expect(count == 5)
  }

  @Test("without a rate given, a host's 429s teach its rate: at most one 429 a Retry-After window")
  func learnedRate() {
    // A host of 20 requests a second (a bucket of 20) that answers 429 with Retry-After: 1
    // beyond, each answer 5 ms after its request; the loop looks every millisecond for 12 s
    // with 16 slots, so up to 16 requests are out when the bucket runs dry.
    var hosts = scheduler(jobs: 16)
    var (tokens, refilled) = (20.0, 0.0)
    var inFlight = [(due: Double, ending: HostScheduler.Ending)]()
    var (answers, throttles) = (0, [Double]())
    for step in 0..<12_000 {
      let now = Double(step) / 1_000
      for reply in inFlight where reply.due <= now {
        _ = hosts.end("h", reply.ending, now: at(now))
        if reply.ending == .answered { answers += 1 } else { throttles.append(now) }
      }
      inFlight.removeAll { $0.due <= now }
      tokens = min(20, tokens + (now - refilled) * 20)
      refilled = now
      while hosts.admission(for: "h", now: at(now)) == .start {
        hosts.start("h", now: at(now))
        let admitted = tokens >= 1
        if admitted { tokens -= 1 }
        inFlight.append(
          (now + 0.005, admitted ? .answered : .throttled(status: 429, retryAfter: 1)))
      }
    }
    #expect(answers >= 200, "\(answers) answers in 12 s")
    // After the first two windows, never two 429s within one Retry-After window.
    let late = throttles.filter { $0 >= 2 }
    for (earlier, later) in zip(late, late.dropFirst()) {
      #expect(later - earlier >= 1, "429s at \(earlier) and \(later)")
    }
  }

  @Test("a 429 storm over 500 hosts: each paused alone, every other admitted, all forgotten after")
  func storm() {
    var hosts = scheduler(jobs: 1_000)
    let names = (0..<500).map { "host\($0).example" }
    for (index, name) in names.enumerated() {
      hosts.start(name, now: at(0))
      let wait = index.isMultiple(of: 2) ? Double(index % 50) : nil
      _ = hosts.end(name, .throttled(status: 429, retryAfter: wait), now: at(0))
    }
    #expect(hosts.admission(for: "quiet.example", now: at(0)) == .start)
    for (index, name) in names.enumerated() where index.isMultiple(of: 2) && index % 50 > 0 {
      #expect(hosts.admission(for: name, now: at(0)) == .wait(until: at(Double(index % 50))))
    }
    // A clock far ahead: every pause is over; answers forget the hosts.
    let later = at(1_000_000)
    for name in names {
      #expect(hosts.admission(for: name, now: later) == .start)
      hosts.start(name, now: later)
      _ = hosts.end(name, .answered, now: later)
    }
    #expect(hosts.hosts.values.allSatisfy { $0.window != nil })
    #expect(hosts.active == 0)
  }

  @Test("absurd limits and waits set in code never trap")
  func absurdLimits() {
    for value in [1e-300, .nan, .infinity, -.infinity, 0, -1, .greatestFiniteMagnitude] {
      var hosts = scheduler(ratePerHost: value, rate: value, retryAfterMax: value)
      for wait in [value, nil] {
        hosts.start("a", now: at(0))
        _ = hosts.end("a", .throttled(status: 429, retryAfter: wait), now: at(0))
        _ = hosts.admission(for: "a", now: at(1))
      }
    }
  }

  @Test("Retry-After: delta-seconds or an HTTP date, strictly; absurd values never trap")
  func retryAfterValues() {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(RetryAfter.seconds("120", now: now) == 120)
    #expect(RetryAfter.seconds(" 3 ", now: now) == 3)
    #expect(RetryAfter.seconds("0", now: now) == 0)
    #expect(RetryAfter.seconds("99999999999999999999999999", now: now) == RetryAfter.longest)
    #expect(RetryAfter.seconds("9223372036854775807", now: now) == RetryAfter.longest)
    for bad in ["-1", "1.5", "+3", "3s", "", "soon", "Tue, 14 Nov 2023 22:13:20 UTC", "1e9"] {
      #expect(RetryAfter.seconds(bad, now: now) == nil, "\(bad)")
    }
    let date = HTTPDate.imfFixdate(seconds: 1_700_000_030) ?? ""
    #expect(RetryAfter.seconds(date, now: now) == 30)
    #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
    #expect(RetryAfter.seconds("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == RetryAfter.longest)
  }

  @Test("rates as policy values: 10/s, 600/m, 0; anything else is refused")
  func rateValues() {
    #expect(PolicyValue.rate("10/s") == 10)
    #expect(PolicyValue.rate("600/m") == 10)
    #expect(PolicyValue.rate("3600/h") == 1)
    #expect(PolicyValue.rate("0.5/s") == 0.5)
    #expect(PolicyValue.rate("0") == 0)
    #expect(PolicyValue.rate("7") == 7)
    for bad in [
      "", "/s", "-1/s", "10/x", "1e3/s", "ten/s", "2000000/s", "1/s/s", "nan", "inf",
      "0.000000000000000000000000001/d", "0.5/d",
    ] {
      #expect(PolicyValue.rate(bad) == nil, "\(bad)")
    }
    for text in ["10/s", "600/h", "1/m", "0", "2/d"] {
      #expect(
        PolicyValue.rate(PolicyValue.text(rate: PolicyValue.rate(text) ?? -1))
          == PolicyValue.rate(text))
    }
    #expect(PolicyValue.text(rate: 10) == "10/s")
    #expect(PolicyValue.text(rate: 0.5) == "30/m")
  }
}
