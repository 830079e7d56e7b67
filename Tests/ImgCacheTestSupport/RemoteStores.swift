import Foundation

/// Remote stores started for one test by `Tests/Fixtures/remotes.py` on 127.0.0.1: Redis
/// servers, nginx as a WebDAV store, moto's S3 with signature checking. Stopped when released.
public final class RemoteStores: @unchecked Sendable {
  /// One redis-server.
  public struct Redis: Decodable, Sendable {
    public let port: Int
    public let pid: Int32
    public let socket: String
  }
  /// nginx with `dav_methods PUT DELETE`; objects go under `root/cache`.
  public struct DAV: Decodable, Sendable {
    public let port: Int
    public let pid: Int32
    public let root: String
    public let log: String
  }
  /// moto's S3, with an IAM user's keys and a bucket.
  public struct S3: Decodable, Sendable {
    public let port: Int
    public let pid: Int32
    public let key: String
    public let secret: String
    public let bucket: String
  }
  private struct Report: Decodable {
    let redis: [Redis]
    let dav: DAV?
    let s3: S3?
  }

  public let redis: [Redis]
  public let dav: DAV?
  public let s3: S3?
  private let process = Process()
  private let stdin = Pipe()
  private let work = TemporaryDirectory("imgcache-remotes")

  /// Starts `redis` Redis servers (with `password`), and WebDAV and S3 when asked.
  public init(redis count: Int = 0, password: String? = nil, dav: Bool = false, s3: Bool = false) {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    var arguments = [
      "python3", repositoryRoot.appendingPathComponent("Tests/Fixtures/remotes.py").path,
      "--work", work.path, "--redis", String(count), "--lifetime", "900",
    ]
    if let password { arguments += ["--password", password] }
    if dav { arguments.append("--dav") }
    if s3 { arguments.append("--s3") }
    process.arguments = arguments
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    do { try process.run() } catch { fatalError("cannot start remotes.py: \(error)") }
    var line = Data()
    while !line.contains(0x0A) {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { fatalError("remotes.py exited before reporting its servers") }
      line += chunk
    }
    guard let report = try? JSONDecoder().decode(Report.self, from: line) else {
      fatalError("unexpected output from remotes.py: \(String(decoding: line, as: UTF8.self))")
    }
    redis = report.redis
    self.dav = report.dav
    self.s3 = report.s3
  }

  deinit {
    // SIGTERM, not only the end of its stdin: other children of the test process may hold
    // a copy of the pipe's write end.
    process.terminate()
    try? stdin.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// `redis-cli` against server `index` (with the password, if any).
  public func redisCLI(_ index: Int, _ arguments: [String], password: String? = nil) -> String {
    let auth = password.map { ["-a", $0, "--no-auth-warning"] } ?? []
    return run(
      "/usr/bin/redis-cli", ["-p", String(redis[index].port)] + auth + arguments
    ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
