import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// The remote tier on nginx's WebDAV and on moto's S3 (signatures checked).
@Suite("imgcache remote tier on WebDAV and S3", .serialized)
struct RemoteStoreTests {
  let machineA = CLIEnvironment()
  let machineB = CLIEnvironment()
  let servers = TestServers.shared

  /// Two machines share `remote`: the second sends no request to the origin.
  private func expectShared(_ remote: String, environment: [String: String] = [:]) throws {
    let paths = servers.distinctImages(10)
    let urls = paths.map { servers.fault($0) }
    let first = machineA.run(["prefetch", "--remote", remote] + urls, environment: environment)
    #expect(first.status == 0 && first.stderr.contains("prefetch:"), "\(first.stderr)")
    #expect(try machineA.counters()["remote_writes"] as? Int == 10)
    let second = machineB.run(
      ["prefetch", "--json", "--remote", remote] + urls, environment: environment)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(servers.requests(paths) == 10, "the second machine sent nothing to the origin")
    #expect(CLIEnvironment.records(second).allSatisfy { $0["source"] as? String == "remote" })
    #expect(machineB.run(["verify", "--full"]).status == 0)
  }

  @Test("WebDAV: shared through nginx's PUT; subdirs or flat; killed mid-prefetch")
  func webdav() throws {
    let stores = RemoteStores(dav: true)
    let dav = try #require(stores.dav)
    let remote = "http://user:dav-secret@127.0.0.1:\(dav.port)/cache"
    try expectShared(remote)
    let objects = DirectoryListing.names(atPath: dav.root + "/cache")
    #expect(objects.count >= 1 && objects.allSatisfy { $0.count == 2 }, "subdirs: \(objects)")
    let status = machineA.run(["remote", "status", "--remote", remote])
    #expect(status.status == 0 && status.stdout.contains("reachable"), "\(status.stdout)")
    #expect(!status.stdout.contains("dav-secret") && status.stdout.contains("***@"))
    // Flat layout, then the server stops mid-prefetch: the prefetch completes.
    let flat = "http://127.0.0.1:\(dav.port)/cache|layout=flat"
    let urls = servers.distinctImages(30).map { servers.fault($0 + "&delay=0.05") }
    let process = try machineA.start(["prefetch", "-q", "-j", "2", "--remote", flat] + urls)
    let deadline = Date().addingTimeInterval(20)
    let files = { DirectoryListing.names(atPath: dav.root + "/cache").filter { $0.count > 2 } }
    while files().count < 4 && Date() < deadline { usleep(20_000) }
    // SIGTERM: nginx's fast shutdown takes its workers along (SIGKILL would leave them serving).
    kill(dav.pid, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let stats = try machineA.counters()
    #expect(stats["downloads"] as? Int == 40)
    #expect((stats["remote_errors"] as? Int ?? 0) + (stats["remote_timeouts"] as? Int ?? 0) == 1)
  }

  @Test("a backend that cannot be set up (no S3 keys) is a warning; the fetch goes on")
  func unusableBackend() {
    let url = servers.fault(servers.distinctImages(1)[0])
    let output = machineA.run(
      ["fetch", url],
      environment: ["IMGCACHE_REMOTE_STORAGE": "s3://images|endpoint=http://127.0.0.1:9"])
    #expect(output.status == 0)
    #expect(
      output.stderr.contains("no credentials") && output.stderr.contains("without the remote"))
    let status = machineA.run([
      "remote", "status", "--remote", "s3://images|endpoint=http://127.0.0.1:9",
    ])
    #expect(status.status == 2, "remote status says it plainly: \(status.stderr)")
  }

  @Test("S3 (moto, signatures checked): shared; a wrong secret is an error, never a failure")
  func s3() throws {
    let stores = RemoteStores(s3: true)
    let s3 = try #require(stores.s3)
    let remote = "s3://\(s3.bucket)/images|endpoint=http://127.0.0.1:\(s3.port)"
    let keys = ["AWS_ACCESS_KEY_ID": s3.key, "AWS_SECRET_ACCESS_KEY": s3.secret]
    try expectShared(remote, environment: keys)
    let status = machineA.run(
      ["remote", "status", "--json", "--remote", remote], environment: keys)
    let record = try #require(CLIEnvironment.records(status).first)
    #expect(record["reachable"] as? Bool == true && record["objects"] as? Int == 10, "\(record)")
    // A wrong secret: S3 refuses the signature; the fetch goes to the origin and succeeds.
    let url = servers.fault(servers.distinctImages(1)[0])
    let wrong = machineB.run(
      ["fetch", "--remote", remote + "|access-key=\(s3.key)|secret-key=not-the-secret", url])
    #expect(wrong.status == 0)
    #expect(wrong.stderr.contains("refused"), "\(wrong.stderr)")
    #expect(!wrong.stderr.contains("not-the-secret"))
    #expect(try machineB.counters()["remote_errors"] as? Int == 1)
    let config = machineB.run(
      ["config", "get", "remote_storage"],
      environment: ["IMGCACHE_REMOTE_STORAGE": remote + "|secret-key=not-the-secret"])
    #expect(config.stdout.contains("secret-key=***") && !config.stdout.contains("not-the-secret"))
    // Killed outright mid-prefetch.
    let urls = servers.distinctImages(30).map { servers.fault($0 + "&delay=0.05") }
    let process = try machineA.start(
      ["prefetch", "-q", "-j", "2", "--remote", remote] + urls, environment: keys)
    usleep(500_000)
    kill(s3.pid, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let stats = try machineA.counters()
    #expect(stats["downloads"] as? Int == 40)
    #expect((stats["remote_errors"] as? Int ?? 0) + (stats["remote_timeouts"] as? Int ?? 0) == 1)
  }
}
