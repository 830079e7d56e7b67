import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Issue 9, data loss and security: nothing outside the cache is deleted or replaced, and a
/// password never leaves the request.
@Suite("imgcache hardening: links in the cache, -o targets, credentials", .serialized)
struct SafetyTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// A folder outside the cache with a file named like a cache body and a victim file.
  func outsideFolder(_ name: String, bodyName: String) throws -> String {
    let folder = env.root.path + "/" + name
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for file in [bodyName, "victim.txt"] {
      try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder + "/" + file))
      // Old enough to be swept as a stale temporary file, were it inside the cache.
      var times = [
        timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0),
      ]
      utimensat(AT_FDCWD, folder + "/" + file, &times, 0)
    }
    return folder
  }

  func isLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  @Test(
    "a shard or tmp/ replaced by a link: clean, clean -n, verify --repair, remove, clear never delete through it"
  )
  func linksInsideTheCache() throws {
    let urls = ["base.png", "base.gif", "base.jpg"].map { servers.nginx($0 + "?links=1") }
    for url in urls { #expect(env.run(["fetch", url]).status == 0) }
    let path = env.run(["query", urls[0]]).stdout.trimmingCharacters(in: .newlines)
    let shardPath = (path as NSString).deletingLastPathComponent
    let bodyName = (path as NSString).lastPathComponent
    let outsideShard = try outsideFolder("outside-shard", bodyName: bodyName)
    try FileManager.default.removeItem(atPath: shardPath)
    try FileManager.default.createSymbolicLink(atPath: shardPath, withDestinationPath: outsideShard)
    let outsideTmp = try outsideFolder("outside-tmp", bodyName: "part-1-1-old")
    try FileManager.default.removeItem(atPath: env.cacheDirectory + "/tmp")
    try FileManager.default.createSymbolicLink(
      atPath: env.cacheDirectory + "/tmp", withDestinationPath: outsideTmp)

    let dry = env.run(["clean", "--json", "--dry-run", "--max-age", "0"])
    #expect(dry.status == 0, "\(dry.stderr)")
    let report = try #require(CLIEnvironment.records(dry).first)
    #expect(Set(report["foreign"] as? [String] ?? []) == ["data/" + shardPath.suffix(2), "tmp"])
    // Nothing is downloaded into a linked tmp/.
    let refused = env.run(["fetch", servers.nginx("base.bmp?links=1")])
    #expect(refused.status == 3)
    expectCleanError(refused, contains: "is a symlink")
    let removed = env.run(["remove", urls[0]])
    #expect(removed.status == 3)
    expectCleanError(removed, contains: "is a symlink")
    let cleaned = env.run(["clean", "--max-age", "0"])
    #expect(cleaned.status == 0 && cleaned.stderr.contains("is a symlink"), "\(cleaned.stderr)")
    let verified = env.run(["verify", "--repair"])
    #expect(verified.stdout.contains("is a link"), "\(verified.stdout)")
    #expect(env.run(["clear"]).status == 0)
    for folder in [outsideShard, outsideTmp] {
      let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
      #expect(names.count == 2, "\(folder): \(names)")
    }
    #expect(FileManager.default.fileExists(atPath: outsideShard + "/" + bodyName))
    // clear moved data/ aside inside $DIR and removed the links themselves, never their
    // targets: the cache works again.
    #expect(!isLink(shardPath) && !isLink(env.cacheDirectory + "/tmp"))
    #expect(env.run(["fetch", urls[0]]).status == 0)
  }

  @Test("fetch -o writes into a device, a fifo and a link, replaces only a regular file")
  func outputTargets() throws {
    let url = servers.nginx("base.png?out=1")
    #expect(env.run(["fetch", url]).status == 0)
    let cached = try #require(
      FileManager.default.contents(
        atPath: env.run(["query", url]).stdout.trimmingCharacters(in: .newlines)))

    // A device node (1, 3: the null device): a private one when root can make it (a build that replaced
    // its target must never be tried on the system's own), else /dev/null itself.
    var device = env.root.path + "/null"
    if mknod(device, S_IFCHR | 0o666, (1 << 8) | 3) != 0 { device = "/dev/null" }
    #expect(env.run(["fetch", "-o", device, url]).status == 0)
    var info = stat()
    #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

    let target = env.root.path + "/target.png"
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    let link = env.root.path + "/link.png"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    #expect(env.run(["fetch", "-o", link, url]).status == 0)
    #expect(isLink(link) && FileManager.default.contents(atPath: target) == cached)

    let fifo = env.root.path + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/bin/sh")
    // Bounded: should the fifo be replaced, nobody would ever open it for writing.
    reader.arguments = ["-c", "timeout 20 cat \"$0\" > \"$0.out\"", fifo]
    try reader.run()
    #expect(env.run(["fetch", "-o", fifo, url]).status == 0)
    reader.waitUntilExit()
    #expect(FileManager.default.contents(atPath: fifo + ".out") == cached)
    #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)

    let regular = env.root.path + "/regular.png"
    try Data("old".utf8).write(to: URL(fileURLWithPath: regular))
    #expect(env.run(["fetch", "-o", regular, url]).status == 0)
    #expect(FileManager.default.contents(atPath: regular) == cached)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: env.root.path)
      .filter { $0.contains(".imgcache-") }
    #expect(leftovers.isEmpty)
  }

  @Test("credentials in a URL are a login: never in the index, names, output, lists or errors")
  func credentialsInURLs() throws {
    let secret = "s3cr3t-\(UUID().uuidString.prefix(8))"
    let good = "http://user:secret@127.0.0.1:\(servers.faultPort)/auth?cred=1"
    let bad = "http://user:\(secret)@127.0.0.1:\(servers.faultPort)/auth?cred=2"
    let fetched = env.run(["fetch", "--json", good])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(fetched.stdout.contains("http://***@127.0.0.1") && !fetched.stdout.contains(":secret@"))
    let failedList = env.root.path + "/failed.txt"
    let refused = env.run(["prefetch", "--save-failed", failedList, bad])
    #expect(refused.status == 6)
    let outputs = [
      fetched.stdout, fetched.stderr, refused.stdout, refused.stderr,
      env.run(["query", "--json", good, bad]).stdout, env.run(["fetch", bad]).stderr,
      env.run(["list", "--json"]).stdout, env.run(["list", "--failed", "--json"]).stdout,
      env.run(["-v", "clean", "--max-age", "0", "--dry-run"]).stdout,
      try String(contentsOfFile: failedList, encoding: .utf8),
    ]
    for output in outputs {
      #expect(!output.contains(secret) && !output.contains(":secret@"), "\(output)")
    }
    // Not even the rerun list: it says ***, and the rerun gives the credentials again.
    for file in try FileManager.default.subpathsOfDirectory(atPath: env.cacheDirectory) {
      #expect(!file.contains(secret))
      let bytes = FileManager.default.contents(atPath: env.cacheDirectory + "/" + file) ?? Data()
      #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the password")
      #expect(bytes.range(of: Data("user:secret".utf8)) == nil, "\(file) holds the password")
    }
    // The key has no userinfo: the same image without credentials is the same entry.
    let plain = "http://127.0.0.1:\(servers.faultPort)/auth?cred=1"
    #expect(env.run(["query", plain]).status == 0)
  }
}
