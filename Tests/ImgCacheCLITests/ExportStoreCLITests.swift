import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// `export -o` to a WebDAV folder (nginx) and an S3 bucket (moto, signatures checked): whole
/// shards sent, the stats file last, read back by `tarfile` and `webdataset`; a re-run asks
/// the store which shards are whole and sends nothing again.
@Suite("imgcache export to WebDAV and S3")
struct ExportStoreCLITests {
  let servers = TestServers.shared
  /// The SHA-256 of no bytes: a signed GET's payload hash.
  static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  /// A CSV table of `count` distinct images with captions, and a 404.
  func table(_ env: CLIEnvironment, count: Int) throws -> String {
    let tag = String(UUID().uuidString.prefix(8))
    var lines = ["url,caption"]
    for i in 0..<count {
      lines.append(servers.fault("/image/base.png?pad=\(i)&t=\(tag)") + ",cat \(i)")
    }
    lines.append(servers.fault("/status/404?t=\(tag)") + ",missing")
    let path = env.root.path + "/table.csv"
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Exports `input` to `target` in shards of 4, then again; checks both runs and that the
  /// cache's tmp/ keeps nothing.
  func exportTwice(
    _ env: CLIEnvironment, _ input: String, to target: String, environment: [String: String] = [:]
  ) {
    let arguments = [
      "export", "-i", input, "-o", target, "--shard-size", "4", "--caption-col", "caption",
    ]
    let first = env.run(arguments, environment: environment)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stderr.contains("exported 9 of 10 samples in 3 shards"), "\(first.stderr)")
    #expect(!first.stderr.contains("secret"), "a credential in a message: \(first.stderr)")
    let again = env.run(arguments + ["-v"], environment: environment)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("0 of 0 samples in 0 shards"), "\(again.stderr)")
    #expect(again.stderr.contains("3 shards whole already"), "\(again.stderr)")
    let left = DirectoryListing.names(atPath: env.cacheDirectory + "/tmp")
    #expect(left.isEmpty, "left in tmp/: \(left)")
  }

  @Test("to a WebDAV folder: whole shards under the path, read back by webdataset")
  func webdav() throws {
    let stores = RemoteStores(dav: true)
    let dav = try #require(stores.dav)
    let env = CLIEnvironment()
    let input = try table(env, count: 9)
    exportTwice(env, input, to: "http://user:dav-secret@127.0.0.1:\(dav.port)/sets/one")
    let folder = dav.root + "/sets/one"
    var expected = Set<String>()
    for shard in ["00000", "00001", "00002"] {
      expected.formUnion([shard + ".tar", shard + ".jsonl", shard + "_stats.json"])
    }
    #expect(Set(DirectoryListing.names(atPath: folder)) == expected)
    let checked = ExportCLITests().check(folder)
    #expect(checked.status == 0 && checked.stdout == "3 shards 9 samples\n", "\(checked.stderr)")
  }

  @Test("to an S3 bucket: whole shards under the prefix; --output-format files is refused")
  func s3() throws {
    let stores = RemoteStores(s3: true)
    let s3 = try #require(stores.s3)
    let env = CLIEnvironment()
    let input = try table(env, count: 9)
    let keys = ["AWS_ACCESS_KEY_ID": s3.key, "AWS_SECRET_ACCESS_KEY": s3.secret]
    let target = "s3://\(s3.bucket)/sets/two|endpoint=http://127.0.0.1:\(s3.port)"
    exportTwice(env, input, to: target, environment: keys)
    // Read back as any S3 client would, signed (moto checks signatures).
    let folder = env.root.path + "/fetched"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for shard in ["00000", "00001", "00002"] {
      for file in [shard + ".tar", shard + ".jsonl", shard + "_stats.json"] {
        let got = run(
          "/usr/bin/curl",
          [
            "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\(s3.key):\(s3.secret)",
            "-H", "x-amz-content-sha256: \(Self.emptySHA256)", "-o", folder + "/" + file,
            "http://127.0.0.1:\(s3.port)/\(s3.bucket)/sets/two/\(file)",
          ])
        #expect(got.status == 0, "\(file): \(got.stderr)")
      }
    }
    let checked = ExportCLITests().check(folder)
    #expect(checked.status == 0 && checked.stdout == "3 shards 9 samples\n", "\(checked.stderr)")
    // The keys in -o itself: blanked in /proc/PID/cmdline while the export runs.
    let slow = env.root.path + "/slow.csv"
    let url = servers.fault("/image/base.png?pad=1&t=\(UUID().uuidString.prefix(8))&delay=1.5")
    try "url\n\(url)\n".write(toFile: slow, atomically: true, encoding: .utf8)
    let keyed =
      "s3://\(s3.bucket)/sets/three|endpoint=http://127.0.0.1:\(s3.port)"
      + "|access-key=\(s3.key)|secret-key=\(s3.secret)"
    let process = try env.start(["export", "-i", slow, "-o", keyed])
    usleep(700_000)
    let cmdline = String(
      decoding: FileManager.default.contents(atPath: "/proc/\(process.processIdentifier)/cmdline")
        ?? Data(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(cmdline.contains("export") && !cmdline.contains(s3.secret), "\(cmdline)")
    let files = env.run(
      ["export", "-i", input, "-o", target, "--output-format", "files"], environment: keys)
    expectCleanError(files, contains: "--output-format files makes a folder a shard")
    #expect(files.status == 2)
    let redis = env.run(["export", "-i", input, "-o", "redis://127.0.0.1:9"])
    expectCleanError(redis, contains: "not Redis")
    #expect(redis.status == 2)
  }

  @Test("killed mid-export to WebDAV: every tar there is whole with its tables; a re-run finishes")
  func killed() throws {
    let stores = RemoteStores(dav: true)
    let dav = try #require(stores.dav)
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    var lines = ["url,caption"]
    for i in 0..<16 {
      lines.append(servers.fault("/image/base.png?pad=\(i)&t=\(tag)&delay=0.2") + ",cat \(i)")
    }
    let input = env.root.path + "/slow.csv"
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: input, atomically: true, encoding: .utf8)
    let folder = dav.root + "/killed"
    let arguments = [
      "export", "-i", input, "-o", "http://user:dav-secret@127.0.0.1:\(dav.port)/killed",
      "--shard-size", "4", "-j", "2", "--caption-col", "caption",
    ]
    let process = try env.start(arguments)
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: folder + "/00000.tar") && Date() < deadline {
      usleep(20_000)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let sent = DirectoryListing.names(atPath: folder)
    let tars = sent.filter { $0.hasSuffix(".tar") }
    #expect(!tars.isEmpty && tars.count < 4, "\(sent)")
    for tar in tars {
      let name = String(tar.dropLast(4))
      #expect(sent.contains(name + ".jsonl") && sent.contains(name + "_stats.json"), "\(sent)")
    }
    let rerun = env.run(arguments + ["-v"])
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(rerun.stderr.contains("\(tars.count) shards whole already"), "\(rerun.stderr)")
    let checked = ExportCLITests().check(folder)
    #expect(checked.status == 0 && checked.stdout == "4 shards 16 samples\n", "\(checked.stderr)")
  }

  @Test("a shard made again (the table grew) has its old tar deleted before new tables go up")
  func remade() throws {
    let stores = RemoteStores(dav: true)
    let dav = try #require(stores.dav)
    let env = CLIEnvironment()
    let input = try table(env, count: 5)  // 5 images and a 404: shards of 4 and 2
    let target = "http://user:dav-secret@127.0.0.1:\(dav.port)/grown"
    let arguments = ["export", "-i", input, "-o", target, "--shard-size", "4"]
    #expect(env.run(arguments).status == 0)
    var rows = try String(contentsOfFile: input, encoding: .utf8)
    rows += servers.fault("/image/base.png?pad=9&t=\(UUID().uuidString.prefix(8))") + ",late\n"
    try rows.write(toFile: input, atomically: true, encoding: .utf8)
    let again = env.run(arguments + ["-v"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("1 shards whole already"), "\(again.stderr)")
    let log = (try? String(contentsOfFile: dav.log, encoding: .utf8)) ?? ""
    let requests = log.split(separator: "\n").filter { $0.contains("/grown/00001") }
      .compactMap { $0.split(separator: "\"").dropFirst().first.map(String.init) }
    #expect(
      requests.suffix(4) == [
        "DELETE /grown/00001.tar HTTP/1.1", "PUT /grown/00001.jsonl HTTP/1.1",
        "PUT /grown/00001_stats.json HTTP/1.1", "PUT /grown/00001.tar HTTP/1.1",
      ], "\(requests)")
  }
}
