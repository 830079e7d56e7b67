import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A hostile origin (issue 21): absurd dates, splicing 206s, content codings, short partials
/// and header values that must never become request header lines.
@Suite("imgcache against a hostile origin: dates, resume, header values", .serialized)
struct HostileOriginTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared
  /// No retry within a run: a cut response fails the run that got it.
  let once = ["IMGCACHE_RETRY": "0"]

  /// A `/hostile` URL that answers with `headers` (raw lines) and an image.
  private func hostile(_ id: String, _ headers: [String], status: Int = 200) -> String {
    let query = headers.map {
      "h=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
    return servers.fault("/hostile?id=\(id)&status=\(status)&" + query.joined(separator: "&"))
  }

  @Test("class 1: a 12-digit year in Expires, Last-Modified, Date crashes nothing, then or later")
  func absurdDates() throws {
    let year = "Sun, 06 Nov 999999999999 08:49:37 GMT"
    let headers = ["Expires: \(year)", "Last-Modified: \(year)", "Date: \(year)"]
    let urls = (0..<3).map { hostile("date-\($0)-\(UUID().uuidString)", headers) }
    for mode in ["never", "http"] {
      let variables = ["IMGCACHE_FRESHNESS": mode]
      let single = env.run(["fetch", urls[0]], environment: variables)
      #expect(single.status == 0, "\(mode): \(single.stderr)")
      let list = urls.joined(separator: "\n") + "\n" + servers.nginx("base.png") + "\n"
      let prefetch = env.run(["prefetch", "-i", "-"], environment: variables, input: list)
      #expect(prefetch.status == 0, "\(mode): \(prefetch.stderr)")
      for arguments in [
        ["query", "--json", urls[1]], ["list", "--json"], ["fetch", "--json", urls[2]],
        ["fetch", "--json", "--offline", urls[0]],
      ] {
        let output = env.run(arguments, environment: variables)
        #expect(output.status == 0, "\(mode) \(arguments): \(output.stderr)")
        #expect(!output.stdout.isEmpty)
      }
    }
  }

  /// Bytes of the `/resumable` body: version 1 or 2 (the latter 1,000 bytes longer).
  private func resumableBody(version: Int, size: Int) -> Data {
    let length = size + (version == 2 ? 1000 : 0)
    let pattern = Array(UInt8(version)...255)
    return Data((0..<length).map { pattern[$0 % pattern.count] })
  }

  private var partials: [String] {
    DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").filter { $0.hasPrefix("resume-") }
  }

  @Test(
    "class 4: a 206 that does not continue the kept bytes exactly (or is empty) is never appended",
    arguments: ["length", "end", "clen", "empty"])
  func neverSplices(bad: String) throws {
    let size = 3_000_000
    let url = servers.fault(
      "/resumable?id=splice-\(bad)-\(UUID().uuidString)&size=\(size)&cut=1500000&bad=\(bad)")
    let first = env.run(["fetch", "--any", url], environment: once)
    #expect(first.status != 0, "the first response was cut")
    #expect(partials.count == 1, "the first 1.5 MB were kept")
    let second = env.run(["fetch", "--any", url], environment: once)
    #expect(second.status == 0, "\(second.stderr)")
    let path = second.stdout.trimmingCharacters(in: .newlines)
    let expected = resumableBody(version: bad == "length" ? 2 : 1, size: size)
    let stored = FileManager.default.contents(atPath: path)
    #expect(stored?.count == expected.count)
    #expect(stored == expected, "one version, byte for byte: never a splice")
    #expect(env.run(["verify", "--full"]).status == 0)
  }

  @Test("class 26: a partial shorter than resume_min_size is not kept, nor its record")
  func shortPartialNotKept() throws {
    let url = servers.fault("/resumable?id=short-\(UUID().uuidString)&size=3000000&cut=300000")
    let first = env.run(["fetch", "--any", url], environment: once)
    #expect(first.status != 0)
    #expect(partials.isEmpty, "300 KB of a 3 MB body is under the 1 MiB floor")
    let records = run(
      "/usr/bin/sqlite3",
      [env.cacheDirectory + "/index.sqlite", "SELECT count(*) FROM partial_download"])
    #expect(
      records.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(records.stderr)")
  }

  @Test("class 5: a cut gzip-coded body is never kept for resume (Content-Encoding is seen)")
  func contentCodedNotKept() throws {
    let url = servers.fault(
      "/resumable?id=gzip-\(UUID().uuidString)&size=3000000&cut=2000000&gz=1")
    let first = env.run(["fetch", "--any", url], environment: once)
    #expect(first.status != 0)
    #expect(partials.isEmpty, "decoded offsets are no Range offsets")
    let again = env.run(["fetch", "--any", url], environment: once)
    #expect(again.status == 0, "not blacklisted for a day: \(again.stderr)")
  }

  @Test("class 9: an ETag or Last-Modified with CR/LF in the index never becomes a header line")
  func validatorInjection() throws {
    let id = "inject-\(UUID().uuidString)"
    let url = hostile(id, ["ETag: \"good\"", "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT"])
    #expect(env.run(["fetch", url]).status == 0)
    let poison =
      "UPDATE entry SET etag = '\"x\"' || char(13) || char(10) || 'X-Injected: etag', "
      + "last_modified = 'Sun' || char(13) || char(10) || 'X-Injected: date'"
    let update = run("/usr/bin/sqlite3", [env.cacheDirectory + "/index.sqlite", poison])
    #expect(update.status == 0, "\(update.stderr)")
    let refreshed = env.run(["fetch", "--refresh", url])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
    let heard = run("/usr/bin/curl", ["-s", servers.fault("/_heard?id=\(id)")]).stdout
    #expect(!heard.lowercased().contains("x-injected"), "\(heard)")
    #expect(heard.contains("If-None-Match") == false, "an unsafe validator is not sent at all")
  }

  @Test("class 16: a holder stopped by SIGSTOP is waited for the idle timeout only, not 10 min")
  func stoppedHolder() throws {
    let url = servers.fault("/image/base.png?slowfirst=25&id=\(UUID().uuidString)")
    let holder = try env.start(["fetch", url])
    defer {
      kill(holder.processIdentifier, SIGCONT)
      kill(holder.processIdentifier, SIGKILL)
      holder.waitUntilExit()
    }
    // The holder is in its transfer (holding the key's lock) once the server saw the request.
    let path = String(url.dropFirst(servers.fault("").count))
    let deadline = Date().addingTimeInterval(20)
    while (servers.stats()?.requests[path] ?? 0) == 0 && Date() < deadline { usleep(10_000) }
    #expect(servers.stats()?.requests[path] == 1, "the holder is downloading")
    kill(holder.processIdentifier, SIGSTOP)
    let waiter = run(
      "/usr/bin/timeout", ["-s", "KILL", "60", imgcacheBinary, "fetch", "--timeout", "2s", url],
      environment: env.environment)
    #expect(waiter.status == 0, "the waiter downloaded it itself: \(waiter.stderr)")
    #expect(waiter.stdout.hasPrefix(env.cacheDirectory + "/data/"))
  }

  @Test("class 24: after fetch and prefetch no index.sqlite-wal or -shm stays behind")
  func noWALLeftBehind() throws {
    let index = env.cacheDirectory + "/index.sqlite"
    let leftovers = {
      ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: index + $0) }
    }
    #expect(env.run(["fetch", servers.nginx("base.png?wal=\(UUID().uuidString)")]).status == 0)
    #expect(leftovers().isEmpty, "after fetch")
    let list = (0..<5).map { servers.nginx("base.jpg?wal=\($0)-\(UUID().uuidString)") }
    let prefetch = env.run(["prefetch", "-i", "-"], input: list.joined(separator: "\n"))
    #expect(prefetch.status == 0, "\(prefetch.stderr)")
    #expect(leftovers().isEmpty, "after prefetch")
    #expect(env.run(["fetch", servers.fault("/status/404?wal=1")]).status != 0)
    #expect(leftovers().isEmpty, "after a failed fetch")
  }
}
