import FoundationEssentials
import Glibc

/// robots.txt for `--robots` (RFC 9309; docs/design.md, Politeness): fetched once per origin
/// (through the same transport, so the host's rate and pauses hold), kept in the index for
/// every process of the cache, and asked before a URL's request goes out.
extension Fetcher {
  /// What robots.txt says of `url` when it is known without waiting (this process's, else the
  /// index's); nil when it must be fetched, or is being fetched (``robotsAnswer(for:)``).
  func robotsAnswerNow(for url: String) -> FetchMachine.RobotsAnswer? {
    guard let (origin, path) = Self.robotsParts(of: url) else { return .allowed }
    let time = cache.now()
    switch robotsBook.knowledge(of: origin, at: time) {
    case .known(let robots): return Self.answer(robots, origin: origin, path: path, url: url)
    case .fetching: return nil
    case .unknown:
      guard let stored = try? cache.index.robots(origin: origin, at: time) else { return nil }
      robotsBook.remember(origin, stored)
      return Self.answer(stored, origin: origin, path: path, url: url)
    }
  }

  /// What robots.txt says of `url`, fetching the file when no process of this cache has it.
  /// The decisions are ``RobotsMachine``'s; this performs its actions.
  func robotsAnswer(for url: String) async -> FetchMachine.RobotsAnswer {
    guard let (origin, path) = Self.robotsParts(of: url) else { return .allowed }
    var machine = RobotsMachine()
    var action = machine.start()
    while true {
      let event: RobotsMachine.Event
      switch action {
      case .finish(let outcome, let publish):
        if let publish {
          if publish.record, let robots = publish.robots {
            try? cache.index.record(robots: robots, origin: origin, at: cache.now())
          }
          robotsBook.finish(origin, with: publish.robots)
        }
        switch outcome {
        case .robots(let robots): return Self.answer(robots, origin: origin, path: path, url: url)
        case .failed(let error): return .refused(error.about(url))
        }
      case .waitForLeader where Task.isCancelled:
        robotsBook.leave(origin)
        event = .cancel
      case _ where Task.isCancelled: event = .cancel
      case .askBook: event = .asked(robotsBook.ask(origin, at: cache.now()))
      case .waitForLeader: event = .leaderGot(await robotsBook.wait(for: origin))
      case .readIndex: event = .index(try? cache.index.robots(origin: origin, at: cache.now()))
      case .fetch: event = .fetched(await fetchRobots(origin), now: cache.now())
      }
      action = machine.handle(event)
    }
  }

  /// Fetches `origin`'s robots.txt: its text, or how the transfer failed.
  private func fetchRobots(_ origin: String) async -> RobotsMachine.Fetched {
    cache.note([.robotsFetches: 1])
    do { try cache.prepare() } catch {
      return .local(CacheError.io("cannot create the cache", error))
    }
    var request = DownloadRequest(
      url: origin + "/robots.txt", temporaryDirectory: cache.layout.tmpPath)
    request.truncatesAt = Int64(RobotsRules.parsedLimit)
    switch await transport.result(of: transport.submit([request])[0]) {
    case .success(let response): return .file(Self.text(of: response))
    case .failure(let error): return .failed(error)
    }
  }

  /// The first ``RobotsRules/parsedLimit`` bytes of `response`'s body; its file removed.
  private static func text(of response: DownloadResponse) -> Data {
    if let body = response.body, response.file == nil {
      return body.prefix(RobotsRules.parsedLimit)
    }
    guard let file = response.file else { return Data() }
    defer { unlink(file) }
    return FileIO.prefix(of: file, upTo: RobotsRules.parsedLimit)
  }

  /// The answer `robots` (of `origin`) gives for `path`.
  private static func answer(_ robots: StoredRobots, origin: String, path: String, url: String)
    -> FetchMachine.RobotsAnswer
  {
    guard let rule = robots.rules.deciding(path), !rule.allows else { return .allowed }
    let why =
      robots.unreachable.map { "robots.txt of \(origin) could not be had (\($0)): all disallowed" }
      ?? "robots.txt of \(origin) disallows it (\(rule.line))"
    return .refused(CacheError(.disallowed, why, url: url))
  }

  /// A URL's origin (`scheme://host[:port]`, lower case, without a default port) and its path
  /// with its query (`/` when empty); nil for a URL without `scheme://`.
  static func robotsParts(of url: String) -> (origin: String, path: String)? {
    guard let separator = URLText.schemeSeparator(in: url) else { return nil }
    let scheme = url[..<separator.lowerBound].lowercased()
    var host = URLText.host(of: url)
    if (scheme == "http" && host.hasSuffix(":80")) || (scheme == "https" && host.hasSuffix(":443"))
    {
      host = String(host[..<(host.lastIndex(of: ":") ?? host.endIndex)])
    }
    let rest = url.utf8[separator.upperBound...]
    let start = rest.firstIndex { URLText.endsAuthority($0) } ?? rest.endIndex
    var path = String(url[start...])
    if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
    if !path.hasPrefix("/") { path = "/" + path }
    return (scheme + "://" + host, withoutDotSegments(path))
  }

  /// `path` (with its query) without `.` and `..` segments (RFC 3986 §5.2.4), as libcurl sends
  /// it: `/a/../private` is asked about as `/private`.
  static func withoutDotSegments(_ path: String) -> String {
    let query = path.firstIndex(of: "?")
    let part = query.map { path[..<$0] } ?? path[...]
    guard part.contains("/.") else { return path }
    var kept = [Substring]()
    let segments = part.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    for (index, segment) in segments.enumerated() {
      let last = index == segments.count - 1
      switch segment {
      case ".": if last { kept.append("") }
      case "..":
        if !kept.isEmpty { kept.removeLast() }
        if last { kept.append("") }
      default: kept.append(segment)
      }
    }
    return "/" + kept.joined(separator: "/") + (query.map { path[$0...] } ?? "")
  }
}
