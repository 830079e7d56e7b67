import Foundation

/// A hostile or broken remote store started for one test by `Tests/Fixtures/hostile_remote.py`
/// on 127.0.0.1 (an S3 listing that overflows, a Redis that dribbles or answers slowly).
/// Stopped when released.
public final class HostileRemote: @unchecked Sendable {
  /// The port it listens on.
  public let port: Int
  /// Every command it received, one a line (its name).
  public let log: String
  private let process = Process()
  private let stdin = Pipe()
  private let work = TemporaryDirectory("imgcache-hostile")

  /// Starts `mode` (`s3-listing`, `redis-dribble`, `redis-slow`) with `options`
  /// (`--delay 0.6`, `--interval 0.5`).
  public init(_ mode: String, _ options: [String] = []) {
    log = work.path + "/commands.log"
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      [
        "python3", repositoryRoot.appendingPathComponent("Tests/Fixtures/hostile_remote.py").path,
        "--mode", mode, "--log", log,
      ] + options
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    do { try process.run() } catch { fatalError("cannot start hostile_remote.py: \(error)") }
    var line = Data()
    while !line.contains(0x0A) {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { fatalError("hostile_remote.py exited before reporting its port") }
      line += chunk
    }
    struct Report: Decodable { let port: Int }
    guard let report = try? JSONDecoder().decode(Report.self, from: line) else {
      fatalError(
        "unexpected output from hostile_remote.py: \(String(decoding: line, as: UTF8.self))")
    }
    port = report.port
  }

  deinit {
    process.terminate()
    try? stdin.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// The commands received so far (names, in order).
  public var commands: [String] {
    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }
}
