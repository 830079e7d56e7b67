import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// An interrupted download resumes where it stopped, and never splices two versions.
@Suite("imgcache resume: Range + If-Range after an interruption", .serialized)
struct ResumeTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared
  static let size = 40 << 20

  private func body(_ seed: UInt8) -> Data {
    var bytes = [UInt8](repeating: 0, count: Self.size)
    var state = UInt32(seed) &* 2_654_435_761 | 1
    for index in bytes.indices {
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return Data(bytes)
  }

  private var partials: [String] {
    DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").filter { $0.hasPrefix("resume-") }
  }

  private func partialSize() -> Int {
    guard let name = partials.first else { return 0 }
    let path = env.cacheDirectory + "/tmp/" + name
    return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }

  /// Starts `fetch --any url` and interrupts it with `signal` once `bytes` are kept.
  private func interrupted(_ url: String, after bytes: Int, signal: Int32 = SIGINT) throws {
    let process = try env.start(["fetch", "--any", url])
    let deadline = Date().addingTimeInterval(30)
    while partialSize() < bytes && process.isRunning && Date() < deadline { usleep(10_000) }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
  }

  /// The `(status, body bytes sent)` nginx logged for `uri`, in order.
  private func logged(_ uri: String) -> [(Int, Int)] {
    let text = (try? String(contentsOfFile: servers.slowLog, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ")
      guard parts.count == 3, parts[0] == uri, let status = Int(parts[1]),
        let sent = Int(parts[2])
      else { return nil }
      return (status, sent)
    }
  }

  @Test("SIGINT at 60 %, SIGKILL at 30 %: the next runs ask only for the rest; same bytes")
  func resumes() throws {
    let name = "slow/big-\(UUID().uuidString.prefix(8)).bin"
    let original = body(1)
    try FileManager.default.createDirectory(
      atPath: servers.root + "/slow", withIntermediateDirectories: true)
    try original.write(to: URL(fileURLWithPath: servers.root + "/" + name))
    let url = servers.nginx(name)
    try interrupted(url, after: Self.size * 6 / 10)
    let kept = partialSize()
    #expect(kept >= Self.size / 2 && kept < Self.size, "the partial body was kept")
    let result = env.run(["fetch", "--any", url])
    #expect(result.status == 0, "\(result.stderr)")
    let path = result.stdout.trimmingCharacters(in: .newlines)
    #expect(FileManager.default.contents(atPath: path) == original, "byte for byte")
    let log = logged("/" + name)
    #expect(log.count == 2)
    #expect(log.last.map { $0.0 == 206 && $0.1 == Self.size - kept } == true, "\(log) kept \(kept)")
    #expect(partials.isEmpty, "the partial body became the entry")
    #expect(env.run(["verify", "--full"]).status == 0)

    // Killed outright: the record written when the body started still lets it resume.
    #expect(env.run(["remove", url]).status == 0)
    try interrupted(url, after: Self.size * 3 / 10, signal: SIGKILL)
    let killedAt = partialSize()
    #expect(killedAt > 0)
    let again = env.run(["fetch", "--any", url])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(logged("/" + name).last.map { $0.0 == 206 && $0.1 == Self.size - killedAt } == true)
    let repeated = again.stdout.trimmingCharacters(in: .newlines)
    #expect(FileManager.default.contents(atPath: repeated) == original)
  }

  @Test("the file changed at the origin: If-Range gets the whole new body, never a splice")
  func replacedAtOrigin() throws {
    let name = "slow/changed-\(UUID().uuidString.prefix(8)).bin"
    let file = URL(fileURLWithPath: servers.root + "/" + name)
    try FileManager.default.createDirectory(
      atPath: servers.root + "/slow", withIntermediateDirectories: true)
    try body(2).write(to: file)
    let url = servers.nginx(name)
    try interrupted(url, after: Self.size * 6 / 10)
    #expect(partialSize() > 0)
    let replacement = body(3)
    try replacement.write(to: file)
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: file.path)
    let result = env.run(["fetch", "--any", url])
    #expect(result.status == 0, "\(result.stderr)")
    let path = result.stdout.trimmingCharacters(in: .newlines)
    #expect(FileManager.default.contents(atPath: path) == replacement)
    #expect(logged("/" + name).last.map { $0.0 == 200 && $0.1 == Self.size } == true)
  }

  @Test("a weak ETag only: nothing is kept to resume")
  func weakValidator() throws {
    let url = servers.fault("/weak?size=3000000&id=\(UUID().uuidString.prefix(8))")
    let process = try env.start(["fetch", "--any", url])
    usleep(1_000_000)
    #expect(partials.isEmpty, "a weak validator never makes a partial body")
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(partials.isEmpty)
    #expect(DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").isEmpty)
  }
}
