import Foundation

/// nginx (HTTP and HTTPS) and the fault server on 127.0.0.1, started once per test process by
/// `Tests/Fixtures/servers.py` and stopped when the process exits (their stdin pipe closes).
public final class TestServers: @unchecked Sendable {
  /// The servers of this test process, started on first use.
  public static let shared = TestServers()

  /// nginx's plain HTTP port.
  public let httpPort: Int
  /// nginx's HTTPS (HTTP/2) port, with a self-signed certificate.
  public let httpsPort: Int
  /// The fault server's port.
  public let faultPort: Int
  /// The self-signed certificate, for `--cacert`.
  public let certificate: String
  /// The directory nginx and the fault server serve.
  public let root: String
  /// nginx's log of `/slow/` (rate-limited to 12 MB/s): `<uri> <status> <body bytes sent>`.
  public let slowLog: String
  /// nginx's log of `/fresh/` (`hour/` expires in 1 h, `zero/` max-age=0, `nocache/`,
  /// `nostore/`, each serving the root's images): `<uri> <status> <body bytes sent>`.
  public let freshLog: String
  private let process: Process
  private let stdin: Pipe

  private init() {
    root = Fixtures.directory.path
    _ = Fixtures.images
    let work = TemporaryDirectory("imgcache-servers")
    slowLog = work.path + "-run/slow.log"
    freshLog = work.path + "-run/fresh.log"
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", repositoryRoot.appendingPathComponent("Tests/Fixtures/servers.py").path,
      "--root", root, "--work", work.path + "-run", "--lifetime", "1800",
    ]
    stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    do { try process.run() } catch { fatalError("cannot start the test servers: \(error)") }
    var line = Data()
    while !line.contains(0x0A) {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { fatalError("the test servers exited before reporting their ports") }
      line += chunk
    }
    struct Ports: Decodable {
      let http: Int
      let https: Int
      let fault: Int
      let cert: String
    }
    guard let ports = try? JSONDecoder().decode(Ports.self, from: line) else {
      fatalError("unexpected output from servers.py: \(String(decoding: line, as: UTF8.self))")
    }
    httpPort = ports.http
    httpsPort = ports.https
    faultPort = ports.fault
    certificate = ports.cert
  }

  /// A URL on nginx over HTTP.
  public func nginx(_ path: String) -> String { "http://127.0.0.1:\(httpPort)/\(path)" }
  /// A URL on nginx over HTTPS.
  public func nginxTLS(_ path: String) -> String { "https://127.0.0.1:\(httpsPort)/\(path)" }
  /// A URL on the fault server.
  public func fault(_ path: String) -> String { "http://127.0.0.1:\(faultPort)\(path)" }

  /// The fault server's counters: requests per path, arrival order, peak concurrency.
  public struct Stats: Decodable, Sendable {
    public let requests: [String: Int]
    public let order: [String]
    public let max_active: Int
    public let max_connections: Int
    /// Peak requests and connections per `g=` query parameter, so parallel tests do not mix.
    public let groups: [String: [String: Int]]
  }

  /// Reads the fault server's counters.
  public func stats() -> Stats? {
    let output = run("/usr/bin/curl", ["-s", "--max-time", "5", fault("/_stats")])
    return try? JSONDecoder().decode(Stats.self, from: Data(output.stdout.utf8))
  }

  /// Writes a file into the served directory and returns its name.
  @discardableResult
  public func serve(_ name: String, _ bytes: [UInt8]) throws -> String {
    try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
    return name
  }
}
