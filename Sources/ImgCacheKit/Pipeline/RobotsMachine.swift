import FoundationEssentials

/// One URL's way to robots.txt's answer (docs/design.md, Politeness), as a value: this
/// process's book first; the first asker of an origin leads (the index, which every process
/// of the cache shares, else a fetch) and the others follow it; a follower whose leader got
/// nothing (cancelled, a local failure) asks again, at most ``turns`` times. What a fetch's
/// answer means is ``verdict(of:now:)``. The owner (`Fetcher.robotsAnswer`) performs each
/// action and feeds back what came of it; the machine does no I/O.
struct RobotsMachine: Sendable {
  /// What the owner reports.
  enum Event: Sendable {
    /// The book's answer to an ask.
    case asked(RobotsBook.Ask)
    /// What the leader got (nil: nothing).
    case leaderGot(StoredRobots?)
    /// What the index holds for the origin (nil: nothing in force).
    case index(StoredRobots?)
    /// What fetching the file came to, at `now`.
    case fetched(Fetched, now: Date)
    /// The caller's task was cancelled.
    case cancel
  }

  /// What fetching robots.txt came to.
  enum Fetched: Sendable, Equatable {
    /// The origin answered 2xx with this text (its first ``RobotsRules/parsedLimit`` bytes).
    case file(Data)
    /// The transfer failed: an origin's status, a network failure, or a cancel.
    case failed(CacheError)
    /// The fetch could not start here (the cache cannot be written).
    case local(CacheError)
  }

  /// What the owner does next.
  enum Action: Sendable, Equatable {
    /// Ask the book (``RobotsBook/ask(_:at:)``).
    case askBook
    /// Wait for the leader (``RobotsBook/wait(for:)``).
    case waitForLeader
    /// Read the index.
    case readIndex
    /// Fetch robots.txt.
    case fetch
    /// Done: hand the leader's result to the book (and the index) when `publish` says so,
    /// then answer with `outcome`.
    case finish(Outcome, publish: Publication?)
  }

  /// What a leader hands on: `robots` to the book's waiters (nil: nothing, they ask again),
  /// kept in the index too when `record`.
  struct Publication: Sendable, Equatable {
    var robots: StoredRobots?
    var record: Bool
  }

  /// How the way ends.
  enum Outcome: Sendable, Equatable {
    /// The file in force.
    case robots(StoredRobots)
    /// None could be had: the URL is refused with this error (`.cancelled`, a local failure).
    case failed(CacheError)
  }

  private enum State: Sendable, Equatable {
    case asking, following, readingIndex, fetching, done
  }

  /// How many times a follower asks again after its leader got nothing.
  static let turns = 8
  /// How long a robots.txt (or a 4xx for it) holds (RFC 9309 §2.4: at most a day).
  static let lifetime: TimeInterval = 86_400
  /// How long an unreachable robots.txt (5xx, 429, a network failure) disallows its host.
  static let unreachableLifetime: TimeInterval = 3_600

  private var state = State.asking
  private var asked = 0

  /// The first action.
  mutating func start() -> Action {
    asked = 1
    return .askBook
  }

  /// The action that follows `event`.
  mutating func handle(_ event: Event) -> Action {
    switch (state, event) {
    case (.done, _):
      return .finish(.failed(Self.cancelled), publish: nil)
    case (.asking, .cancel), (.following, .cancel):
      return end(.failed(Self.cancelled), publish: nil)
    case (.readingIndex, .cancel), (.fetching, .cancel):
      return end(.failed(Self.cancelled), publish: Publication(robots: nil, record: false))
    case (.asking, .asked(.known(let robots))):
      return end(.robots(robots), publish: nil)
    case (.asking, .asked(.follow)):
      state = .following
      return .waitForLeader
    case (.asking, .asked(.lead)):
      state = .readingIndex
      return .readIndex
    case (.following, .leaderGot(let robots?)):
      return end(.robots(robots), publish: nil)
    case (.following, .leaderGot(nil)):
      guard asked < Self.turns else { return end(.failed(Self.cancelled), publish: nil) }
      (state, asked) = (.asking, asked + 1)
      return .askBook
    case (.readingIndex, .index(let robots?)):
      return end(.robots(robots), publish: Publication(robots: robots, record: false))
    case (.readingIndex, .index(nil)):
      state = .fetching
      return .fetch
    case (.fetching, .fetched(let fetched, let now)):
      let (robots, record) = Self.verdict(of: fetched, now: now)
      guard let robots else {
        let error: CacheError
        switch fetched {
        case .failed(let failure), .local(let failure): error = failure
        case .file: error = Self.cancelled
        }
        return end(.failed(error), publish: Publication(robots: nil, record: false))
      }
      return end(.robots(robots), publish: Publication(robots: robots, record: record))
    default:
      // An event the state does not expect (an owner's mistake): ended, leaving nothing held.
      let leading = state == .readingIndex || state == .fetching
      return end(
        .failed(Self.cancelled), publish: leading ? Publication(robots: nil, record: false) : nil)
    }
  }

  private mutating func end(_ outcome: Outcome, publish: Publication?) -> Action {
    state = .done
    return .finish(outcome, publish: publish)
  }

  private static let cancelled = CacheError(.cancelled, "cancelled")

  /// What a fetch's result means (RFC 9309 §2.3.1), at `now`: the file's rules for a day; a
  /// 4xx (not 429) allows everything for a day (§2.3.1.3: unavailable); a 5xx or a network
  /// failure disallows everything for an hour (§2.3.1.4: unreachable), kept in the index for
  /// every process; a 429 disallows everything for an hour in this process only (the host
  /// refuses everything for now); a cancel or a local failure means nothing (nil).
  static func verdict(of fetched: Fetched, now: Date) -> (robots: StoredRobots?, record: Bool) {
    switch fetched {
    case .file(let text):
      let rules = RobotsRules.parse(text, agent: RobotsTag.agent)
      return (StoredRobots(rules: rules, expires: now + lifetime), true)
    case .local: return (nil, false)
    case .failed(let error) where error.kind == .cancelled: return (nil, false)
    case .failed(let error):
      let unreachable = StoredRobots(
        rules: .disallowAll, unreachable: error.detail, expires: now + unreachableLifetime)
      if error.kind == .rateLimited { return (unreachable, false) }
      let status = error.httpStatus ?? 0
      if (400..<500).contains(status) && status != 429 {
        return (StoredRobots(rules: .allowAll, expires: now + lifetime), true)
      }
      return (unreachable, true)
    }
  }
}
