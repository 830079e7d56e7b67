import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// One Redis for a job's queue and remote tier, and workers started on machines of their own
/// (`JobCLITests`, `JobRetryCLITests`, `FleetTests`).
final class JobFleet: @unchecked Sendable {
  let redis = RemoteStores(redis: 1)
  var queue: String { "redis://127.0.0.1:\(redis.redis[0].port)" }

  /// Runs `job ARGUMENTS… --queue` in `machine`.
  @discardableResult
  func job(
    _ machine: CLIEnvironment, _ arguments: [String], environment: [String: String] = [:]
  ) -> ProcessOutput {
    machine.run(["job"] + arguments + ["--queue", queue], environment: environment)
  }

  /// The job's `status --json`.
  func status(_ name: String) throws -> [String: Any] {
    try #require(CLIEnvironment.records(job(CLIEnvironment(), ["status", name, "--json"])).first)
  }

  /// Submits `urls` as job `name`.
  func submit(_ name: String, _ urls: [String], _ extra: [String] = []) throws {
    let list = TemporaryDirectory("imgcache-job")
    let path = try list.write("urls.txt", Array((urls.joined(separator: "\n") + "\n").utf8))
    let submitted = job(CLIEnvironment(), ["submit", name, "-i", path] + extra)
    try #require(submitted.status == 0, "\(submitted.stderr)")
  }

  /// A worker process, the machine it runs on (its cache directory lives as long as it), and
  /// the file its stderr goes to.
  struct Worker {
    let machine: CLIEnvironment
    let process: Process
    let log: String

    /// Waits for the worker's end (killing it after `seconds`: a test never hangs); its
    /// status (-1 when killed so) and what it said.
    func finish(seconds: Double = 240) -> (status: Int32, said: String) {
      let deadline = Date().addingTimeInterval(seconds)
      while process.isRunning && Date() < deadline { usleep(20_000) }
      let late = process.isRunning
      if late { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      return (late ? -1 : process.terminationStatus, said)
    }
  }

  /// Starts a worker of `name` on a machine of its own.
  func worker(
    _ name: String, remote: String? = nil, environment: [String: String] = [:]
  ) throws -> Worker {
    let machine = CLIEnvironment()
    let log = machine.root.path + "/worker-\(UUID().uuidString.prefix(6)).log"
    let process = Process()
    // exec: the process signalled is the worker itself, its stderr in the log.
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "exec \"$0\" job work \"$1\" --queue \"$2\" --remote \"$4\" 2>\"$3\"",
      imgcacheBinary, name, queue, log, remote ?? queue,
    ]
    process.environment = machine.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return Worker(machine: machine, process: process, log: log)
  }

  /// Waits (`seconds` at most) until `condition` holds.
  func wait(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      try #require(Date() < deadline, "timed out waiting for \(what)")
      usleep(50_000)
    }
  }

  func manifest(_ name: String) -> [[String: Any]] {
    CLIEnvironment.records(job(CLIEnvironment(), ["manifest", name]))
  }
}
