import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

@Suite("imgcache fetch and query", .serialized)
struct FetchCommandTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("fetch prints the absolute cached path, nothing else on stdout, exit 0; a second run hits")
  func fetchPrintsPath() throws {
    let url = servers.nginx("base.png")
    let first = env.run(["fetch", url])
    #expect(first.status == 0)
    #expect(first.stderr.isEmpty)
    let path = first.stdout.trimmingCharacters(in: .newlines)
    #expect(path.hasPrefix(env.cacheDirectory + "/data/"))
    #expect(path.hasSuffix(".png"))
    #expect(first.stdout == path + "\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Fixtures.bytes("base.png")))
    #expect(env.run(["fetch", url]).stdout == first.stdout)
  }

  @Test("several URLs print in argument order; a batch exits with the most severe status")
  func batchOrder() {
    let urls = [servers.nginx("base.gif"), servers.nginx("base.jpg"), servers.nginx("lossy.webp")]
    let output = env.run(["fetch"] + urls)
    let lines = output.stdout.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0].hasSuffix(".gif") && lines[1].hasSuffix(".jpg") && lines[2].hasSuffix(".webp"))
    // 404 (8) + not an image (9) + offline-style success: the lowest error wins, never the last.
    let mixed = env.run([
      "fetch", servers.fault("/status/404?b=1"), servers.fault("/html?b=1"), urls[0],
    ])
    #expect(mixed.status == 8)
    #expect(mixed.stdout.split(separator: "\n").count == 1)
    #expect(mixed.stderr.split(separator: "\n").count == 2)
  }

  @Test("-o copies the cached file and prints the output path; --link hard-links")
  func outputFile() throws {
    let copy = env.root.path + "/copy.png"
    let output = env.run(["fetch", "-o", copy, servers.nginx("base.png")])
    #expect(output.status == 0)
    #expect(output.stdout == copy + "\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(Fixtures.bytes("base.png")))
    let linked = env.root.path + "/linked.png"
    #expect(env.run(["fetch", "-o", linked, "--link", servers.nginx("base.png")]).status == 0)
    var a = stat()
    var b = stat()
    let cached = env.run(["query", servers.nginx("base.png")]).stdout.trimmingCharacters(
      in: .newlines)
    stat(linked, &a)
    stat(cached, &b)
    #expect(a.st_ino == b.st_ino)
    #expect(
      env.run(["fetch", "-o", copy, servers.nginx("base.png"), servers.nginx("base.gif")]).status
        == 2)
  }

  @Test("--json gives one record per URL with the stored metadata")
  func json() throws {
    let url = servers.nginx("alpha.png")
    let output = env.run(["fetch", "--json", url])
    let record = try #require(CLIEnvironment.records(output).first)
    #expect(record["url"] as? String == url)
    #expect(record["status"] as? String == "downloaded")
    #expect(record["format"] as? String == "png")
    #expect(record["width"] as? Int == 40 && record["height"] as? Int == 30)
    #expect(record["size"] as? Int == Fixtures.bytes("alpha.png").count)
    #expect(record["content_type"] as? String == "image/png")
    #expect((record["etag"] as? String)?.isEmpty == false)
    #expect((record["created"] as? String)?.hasSuffix("Z") == true)
    #expect(record["exit_code"] as? Int == 0)
    #expect(record["error"] is NSNull)
    let failure = try #require(
      CLIEnvironment.records(env.run(["fetch", "--json", servers.fault("/status/410?j=1")])).first)
    #expect(failure["status"] as? String == "error")
    #expect(failure["exit_code"] as? Int == 8)
    #expect((failure["error"] as? [String: Any])?["http_status"] as? Int == 410)
  }

  @Test(
    "one exit status per failure class",
    arguments: [
      ("/status/404?e=1", Int32(8), "HTTP 404"),
      ("/html?e=1", 9, "not an image"),
      ("/redirect-loop?e=1", 7, "too many redirects"),
      ("/auth?e=1", 6, "authentication refused"),
      ("/hang?s=5&e=1", 4, "timed out"),
    ])
  func exitStatuses(path: String, status: Int32, message: String) {
    let output = env.run(["fetch", "--timeout", "1s", "--retry", "0", servers.fault(path)])
    #expect(output.status == status, "\(path): \(output.stderr)")
    #expect(output.stdout.isEmpty)
    expectCleanError(output, contains: message)
  }

  @Test("TLS: self-signed fails with 5; --cacert and --insecure (with a warning) succeed")
  func tls() {
    let url = servers.nginxTLS("base.gif")
    let refused = env.run(["fetch", url])
    #expect(refused.status == 5)
    expectCleanError(refused, contains: "TLS")
    #expect(env.run(["fetch", "--retry-failed", "--cacert", servers.certificate, url]).status == 0)
    let insecure = env.run(["fetch", "--reload", "-k", url])
    #expect(insecure.status == 0)
    #expect(insecure.stderr.contains("warning"))
  }

  @Test("a connection refused is a network failure (4) and is not blacklisted")
  func connectionRefused() {
    let output = env.run(["fetch", "--retry", "0", "http://127.0.0.1:9/a.png"])
    #expect(output.status == 4)
    #expect(env.run(["fetch", "--retry", "0", "http://127.0.0.1:9/a.png"]).status == 4)
  }

  @Test("blacklisted URLs exit 11 until --retry-failed; clear --failed forgets them")
  func blacklist() {
    let url = servers.fault("/status/404?bl=1")
    #expect(env.run(["fetch", url]).status == 8)
    let again = env.run(["fetch", url])
    #expect(again.status == 11)
    expectCleanError(again, contains: "failed recently")
    #expect(env.run(["fetch", "--retry-failed", url]).status == 8)
    #expect(env.run(["clear", "--failed"]).stdout.contains("1 failed URLs"))
    #expect(env.run(["fetch", url]).status == 8)
  }

  @Test("--offline: hit or exit 1 without network; --reload and --refresh; --any")
  func modes() {
    let url = servers.fault("/etag?v=7&name=base.jpg")
    let miss = env.run(["fetch", "--offline", url])
    #expect(miss.status == 1)
    #expect(miss.stdout.isEmpty)
    #expect(env.run(["fetch", url]).status == 0)
    #expect(env.run(["fetch", "--offline", url]).status == 0)
    let refresh = env.run(["fetch", "--json", "--refresh", url])
    #expect(CLIEnvironment.records(refresh).first?["status"] as? String == "not_modified")
    let reload = env.run(["fetch", "--json", "--reload", url])
    #expect(CLIEnvironment.records(reload).first?["status"] as? String == "downloaded")
    #expect(env.run(["fetch", "--offline", "--reload", url]).status == 2)
    #expect(env.run(["fetch", "--any", servers.fault("/html?any=1")]).status == 0)
  }

  @Test(
    "--key, --key-filter strip-query, --ro-dir, -H, --user, --netrc, --cookie-jar, --user-agent")
  func transferOptions() throws {
    let stripped = env.run([
      "fetch", "--key-filter", "strip-query", servers.nginx("base.png?sig=1"),
    ])
    let same = env.run([
      "fetch", "--offline", "--key-filter", "strip-query", servers.nginx("base.png?sig=2"),
    ])
    #expect(stripped.status == 0 && same.stdout == stripped.stdout)
    let keyed = env.run(["fetch", "--key", "my-key.png", servers.nginx("base.gif")])
    #expect(keyed.stdout.contains(MD5.hex(of: "my-key.png")))
    let ro = TemporaryDirectory("ro")
    let roURL = servers.nginx("never-served.png")
    try ro.write(CacheKey.fileName(for: roURL), Fixtures.bytes("base.png"))
    #expect(
      env.run(["fetch", "--ro-dir", ro.path, roURL]).stdout == ro.path + "/"
        + CacheKey.fileName(for: roURL) + "\n")
    let headers = env.run([
      "fetch", "--any", "--json", "-H", "X-Demo: 1", "--user-agent", "tester/1",
      servers.fault("/headers?h=1"),
    ])
    let path = try #require(CLIEnvironment.records(headers).first?["path"] as? String)
    let sent = try String(contentsOfFile: path, encoding: .utf8)
    #expect(sent.contains("\"X-Demo\": \"1\"") && sent.contains("tester/1"))
    #expect(env.run(["fetch", "--user", "user:secret", servers.fault("/auth?u=1")]).status == 0)
    try "machine 127.0.0.1 login user password secret\n".write(
      toFile: env.root.path + "/home/.netrc", atomically: true, encoding: .utf8)
    #expect(env.run(["fetch", "--netrc", servers.fault("/auth?u=2")]).status == 0)
    let jar = env.root.path + "/jar.txt"
    let cookie = env.run(["fetch", "--cookie-jar", jar, servers.fault("/cookie/set")])
    #expect(cookie.status == 0, "\(cookie.stderr)")
    #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("session"))
    #expect(env.run(["fetch", "--max-filesize", "100", servers.nginx("alpha.png")]).status == 7)
    #expect(env.run(["fetch", "--connect-timeout", "soon", servers.nginx("base.png")]).status == 2)
  }

  @Test("query: exit 0 all cached, 1 any miss; does not touch last access unless --touch; --json")
  func query() throws {
    let url = servers.nginx("base.tiff")
    #expect(env.run(["query", url]).status == 1)
    #expect(env.run(["fetch", url]).status == 0)
    let before = try #require(CLIEnvironment.records(env.run(["query", "--json", url])).first)
    #expect(before["cached"] as? Bool == true)
    #expect(before["format"] as? String == "tiff")
    #expect(before["blacklisted"] as? Bool == false)
    #expect(before["scale"] as? Int == 1)
    sleep(1)
    let after = try #require(CLIEnvironment.records(env.run(["query", "--json", url])).first)
    #expect(after["last_access"] as? String == before["last_access"] as? String)
    _ = env.run(["query", "--touch", url])
    let touched = try #require(CLIEnvironment.records(env.run(["query", "--json", url])).first)
    #expect(touched["last_access"] as? String != before["last_access"] as? String)
    let mixed = env.run(["query", url, servers.nginx("nothing.png")])
    #expect(mixed.status == 1)
    #expect(mixed.stdout.split(separator: "\n").count == 1)
    let missing = try #require(
      CLIEnvironment.records(env.run(["query", "--json", servers.nginx("nothing.png")])).first)
    #expect(missing["cached"] as? Bool == false)
  }

  @Test("a closed stdout pipe ends quietly")
  func closedPipe() {
    let urls = (0..<3).map { servers.nginx("base.png?pipe=\($0)") }
    for url in urls { env.run(["fetch", url]) }
    let script =
      "\(imgcacheBinary) query \(urls.joined(separator: " ")) | head -c 0; echo status=${PIPESTATUS[0]}"
    let output = ImgCacheTestSupport.run("/bin/bash", ["-c", script], environment: env.environment)
    #expect(output.stderr.isEmpty, "\(output.stderr)")
    #expect(output.stdout.contains("status=0"))
  }
}
