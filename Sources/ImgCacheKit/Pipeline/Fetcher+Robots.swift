import Foundation

/// robots.txt for `--robots` (RFC 9309; docs/design.md, Politeness): fetched once per origin
/// (through the same transport, so the host's rate and pauses hold), kept in the index for
/// every process of the cache, and asked before a URL's request goes out.
extension Fetcher {
  /// How long a robots.txt (or a 4xx for it) holds (RFC 9309 §2.4: at most a day).
  static let robotsLifetime: TimeInterval = 86_400
  /// How long an unreachable robots.txt (5xx, 429, a network failure) disallows its host
  /// before it is asked again.
  static let unreachableRobotsLifetime: TimeInterval = 3_600

  /// What robots.txt says of `url` when it is known without waiting (this process's, else the
  /// index's); nil when it must be fetched, or is being fetched (``robotsAnswer(for:)``).
  func robotsAnswerNow(for url: String) -> JobMachine.RobotsAnswer? {
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
  func robotsAnswer(for url: String) async -> JobMachine.RobotsAnswer {
    guard let (origin, path) = Self.robotsParts(of: url) else { return .allowed }
    // A follower whose leader got nothing (cancelled, or a local failure) asks again: it may
    // lead the next fetch. Bounded: each turn ends a fetch.
    for _ in 0..<8 {
      guard !Task.isCancelled else { break }
      switch robotsBook.ask(origin, at: cache.now()) {
      case .known(let robots): return Self.answer(robots, origin: origin, path: path, url: url)
      case .follow:
        guard let robots = await robotsBook.wait(for: origin) else { continue }
        return Self.answer(robots, origin: origin, path: path, url: url)
      case .lead:
        // Another process may have fetched it since.
        let fetched: Result<StoredRobots, CacheError>
        if let found = try? cache.index.robots(origin: origin, at: cache.now()) {
          fetched = .success(found)
        } else {
          fetched = await fetchRobots(origin)
        }
        robotsBook.finish(origin, with: try? fetched.get())
        switch fetched {
        case .success(let robots): return Self.answer(robots, origin: origin, path: path, url: url)
        case .failure(let error): return .refused(error.about(url))
        }
      }
    }
    return .refused(CacheError(.cancelled, "cancelled", url: url))
  }

  /// `origin`'s robots.txt, fetched and kept in the index; a failure when the fetch was
  /// cancelled or the cache cannot be written (an answer of the origin is never a failure).
  private func fetchRobots(_ origin: String) async -> Result<StoredRobots, CacheError> {
    cache.note([.robotsFetches: 1])
    do { try cache.prepare() } catch {
      return .failure(CacheError.io("cannot create the cache", error))
    }
    var request = DownloadRequest(
      url: origin + "/robots.txt", temporaryDirectory: cache.layout.tmpPath)
    request.truncatesAt = Int64(RobotsRules.parsedLimit)
    let result = await transport.result(of: transport.submit([request])[0])
    let now = cache.now()
    let robots: StoredRobots
    switch result {
    case .success(let response):
      let rules = RobotsRules.parse(Self.text(of: response), agent: RobotsTag.agent)
      robots = StoredRobots(rules: rules, expires: now + Self.robotsLifetime)
    case .failure(let error) where error.kind == .cancelled:
      return .failure(error)
    case .failure(let error) where error.kind == .rateLimited:
      // The host refuses everything for now: so is robots.txt, for this process only.
      return .success(
        StoredRobots(
          rules: .disallowAll, unreachable: error.detail,
          expires: now + Self.unreachableRobotsLifetime))
    case .failure(let error):
      let status = error.httpStatus ?? 0
      if (400..<500).contains(status) && status != 429 {
        // §2.3.1.3: unavailable, so no rules.
        robots = StoredRobots(rules: .allowAll, expires: now + Self.robotsLifetime)
      } else {
        // §2.3.1.4: unreachable, so everything disallowed, for a while.
        robots = StoredRobots(
          rules: .disallowAll, unreachable: error.detail,
          expires: now + Self.unreachableRobotsLifetime)
      }
    }
    try? cache.index.record(robots: robots, origin: origin, at: now)
    return .success(robots)
  }

  /// The first ``RobotsRules/parsedLimit`` bytes of `response`'s body; its file removed.
  private static func text(of response: DownloadResponse) -> Data {
    if let body = response.body, response.file == nil {
      return body.prefix(RobotsRules.parsedLimit)
    }
    guard let file = response.file else { return Data() }
    defer { unlink(file) }
    guard let handle = FileHandle(forReadingAtPath: file) else { return Data() }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: RobotsRules.parsedLimit)) ?? Data()
  }

  /// The answer `robots` (of `origin`) gives for `path`.
  private static func answer(_ robots: StoredRobots, origin: String, path: String, url: String)
    -> JobMachine.RobotsAnswer
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
