import Foundation
import ImgCacheTestSupport
import Testing

/// `imgcache export`: a URL table to WebDataset shards through the cache, read back by Python's
/// `tarfile` and `webdataset`; resumed after a kill; exported again with no network.
@Suite("imgcache export")
struct ExportCLITests {
  let servers = TestServers.shared

  /// A CSV table of `count` distinct images on the fault server (captions with a comma, a
  /// quote and a line break; a saved column), then a 404 and a row without a URL.
  func table(_ env: CLIEnvironment, count: Int, tag: String, delay: Double? = nil) throws -> String
  {
    var lines = ["url,caption,n"]
    for i in 0..<count {
      let slow = delay.map { "&delay=\($0)" } ?? ""
      lines.append(
        servers.fault("/image/base.png?pad=\(i)&t=\(tag)\(slow)")
          + ",\"image \(i), \"\"quoted\"\"\nsecond line\",\(i)")
    }
    lines.append(servers.fault("/status/404?t=\(tag)") + ",missing,404")
    lines.append(",no url,0")
    let path = env.root.path + "/table.csv"
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Checks every shard of `directory` with tarfile and webdataset: keys, bytes against the
  /// recorded SHA-256, captions, and the stats against the metadata tables; prints a summary.
  func check(_ directory: String, format: String = "png") -> ProcessOutput {
    let script = """
      import glob, hashlib, json, sys, tarfile, webdataset
      d = sys.argv[1]
      tars = sorted(glob.glob(d + '/*.tar'))
      for t in tars:
          with tarfile.open(t) as f:
              names = f.getnames()
          stats = json.load(open(t[:-4] + '_stats.json'))
          rows = [json.loads(l) for l in open(t[:-4] + '.jsonl')]
          assert stats['count'] == len(rows), (stats, len(rows))
          assert stats['successes'] == sum(r['status'] == 'success' for r in rows)
          assert len(names) == 3 * stats['successes'], names
      n = 0
      for s in webdataset.WebDataset(tars, shardshuffle=False):
          meta = json.loads(s['json'])
          assert meta['key'] == s['__key__'] and meta['status'] == 'success'
          assert hashlib.sha256(s['\(format)']).hexdigest() == meta['sha256']
          assert s['txt'].decode() == meta['caption'], (s['txt'], meta)
          n += 1
      print(len(tars), 'shards', n, 'samples')
      """
    return run("/usr/bin/env", ["python3", "-c", script, directory])
  }

  @Test("a table to WebDataset shards: img2dataset's keys and files, read back by webdataset")
  func webdataset() throws {
    let env = CLIEnvironment()
    let tag = UUID().uuidString.prefix(8)
    let input = try table(env, count: 23, tag: String(tag))
    let out = env.root.path + "/shards"
    let run = env.run([
      "export", "-i", input, "-o", out, "--caption-col", "caption", "--save-column", "n",
      "--shard-size", "10", "-v",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("table.csv, line 49: no URL in column 'url'; row skipped"))
    #expect(run.stderr.contains("exported 23 of 24 samples in 3 shards"), "\(run.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(
      files == [
        "00000.jsonl", "00000.tar", "00000_stats.json", "00001.jsonl", "00001.tar",
        "00001_stats.json", "00002.jsonl", "00002.tar", "00002_stats.json",
      ])
    let checked = check(out)
    #expect(checked.status == 0 && checked.stdout == "3 shards 23 samples\n", "\(checked.stderr)")
    let last = try String(contentsOfFile: out + "/00002.jsonl", encoding: .utf8)
      .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
    let failed = try #require(last.last as? [String: Any])
    #expect(failed["status"] as? String == "failed_to_download")
    #expect(
      failed["error_message"] as? String == "HTTP 404" && failed["key"] as? String == "000023")
    #expect(failed["n"] as? String == "404" && failed["width"] is NSNull)
    let stats =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: out + "/00002_stats.json"))) as? [String: Any]
    #expect(stats?["count"] as? Int == 4 && stats?["failed_to_download"] as? Int == 1)
    #expect((stats?["status_dict"] as? [String: Int]) == ["success": 3, "HTTP 404": 1])
    let listed = ImgCacheTestSupport.run("/bin/tar", ["-tf", out + "/00000.tar"])
    #expect(listed.status == 0 && listed.stdout.hasPrefix("000000.png\n000000.txt\n000000.json\n"))
  }

  @Test("exported again at a new size from the cache alone: zero requests at the origin")
  func reexportOffline() throws {
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    let input = try table(env, count: 12, tag: tag)
    #expect(
      env.run(["export", "-i", input, "-o", env.root.path + "/a", "--caption-col", "caption"])
        .status == 0)
    let before = requests(tag)
    #expect(before == 13)
    let again = env.run([
      "export", "-i", input, "-o", env.root.path + "/b", "--caption-col", "caption",
      "--resize", "4x4", "--output-format", "files", "--offline",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(requests(tag) == before)
    let sample =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: env.root.path + "/b/00000/000000000.json")))
      as? [String: Any]
    #expect((sample?["width"] as? Int ?? 99) <= 4 && (sample?["original_width"] as? Int ?? 0) > 4)
    #expect(FileManager.default.fileExists(atPath: env.root.path + "/b/00000/000000000.png"))
  }

  @Test("killed mid-export: only whole shards; a re-run skips them and finishes the rest")
  func killAndResume() throws {
    let env = CLIEnvironment()
    let input = try table(env, count: 30, tag: String(UUID().uuidString.prefix(8)), delay: 0.2)
    let out = env.root.path + "/shards"
    let arguments = [
      "export", "-i", input, "-o", out, "--caption-col", "caption", "--shard-size", "5", "-j", "2",
    ]
    let process = try env.start(arguments)
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: out + "/00001_stats.json") && Date() < deadline {
      usleep(20_000)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let left = try FileManager.default.contentsOfDirectory(atPath: out)
    let visible = left.filter { !$0.hasPrefix(".") }
    for tar in visible where tar.hasSuffix(".tar") {
      #expect(ImgCacheTestSupport.run("/bin/tar", ["-tf", out + "/" + tar]).status == 0, "\(tar)")
    }
    #expect(visible.filter { $0.hasSuffix("_stats.json") }.count >= 2, "\(left)")
    #expect(visible.filter { $0.hasSuffix("_stats.json") }.count < 7, "\(left)")
    let rerun = env.run(arguments + ["-v"])
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(rerun.stderr.contains("shard 00000: whole already, skipped"))
    let after = try FileManager.default.contentsOfDirectory(atPath: out)
    #expect(after.filter { $0.hasPrefix(".") }.isEmpty, "the killed run's leftovers: \(after)")
    let checked = check(out)
    #expect(checked.status == 0 && checked.stdout == "7 shards 30 samples\n", "\(checked.stderr)")
  }

  @Test("--dedup url and sha256, --verify-hash, a gzip JSON lines table with typed columns")
  func dedupAndHashes() throws {
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    let same = servers.fault("/image/base.png?t=\(tag)&same=1")
    let twin = servers.fault("/image/base.png?t=\(tag)&same=2")  // the same body
    let other = servers.fault("/image/base.png?t=\(tag)&pad=3")
    let rows = [
      #"{"url": "\#(same)", "n": 1, "tags": ["a", 2], "h": "\#(String(repeating: "0", count: 32))"}"#,
      #"{"url": "\#(same)", "n": 2}"#, #"{"url": "\#(twin)", "n": 3}"#,
      #"{"url": "\#(other)", "n": 4}"#, "not json",
    ]
    let plain = env.root.path + "/t.jsonl"
    try (rows.joined(separator: "\n") + "\n").write(
      toFile: plain, atomically: true, encoding: .utf8)
    #expect(ImgCacheTestSupport.run("/bin/gzip", [plain]).status == 0)
    func export(_ extra: [String]) throws -> [[String: Any]] {
      let out = env.root.path + "/out-\(UUID().uuidString.prefix(6))"
      let run = env.run(
        ["export", "-i", plain + ".gz", "-o", out, "--save-column", "n", "--save-column", "tags"]
          + extra)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.contains("t.jsonl.gz, line 5: not a JSON object; row skipped"))
      return try String(contentsOfFile: out + "/00000.jsonl", encoding: .utf8)
        .split(separator: "\n").compactMap {
          try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
    let byURL = try export(["--dedup", "url"]).map { $0["status"] as? String }
    #expect(byURL == ["success", "duplicate", "success", "success"])
    let byBody = try export(["--dedup", "sha256"])
    #expect(
      byBody.map { $0["status"] as? String } == ["success", "duplicate", "duplicate", "success"])
    #expect(byBody[0]["n"] as? Int == 1 && (byBody[0]["tags"] as? [Any])?.count == 2)
    #expect(byBody[1]["tags"] is NSNull)
    let checked = try export(["--verify-hash", "h:md5"])
    #expect(checked[0]["status"] as? String == "failed_to_download")
    let refusal = checked[0]["error_message"] as? String ?? ""
    #expect(refusal.hasPrefix("its md5 is "), "\(refusal)")
    #expect(refusal.hasSuffix(", not the table's \(String(repeating: "0", count: 32))"))
    #expect(checked[1]["status"] as? String == "success")
  }

  @Test("--shard K/N on two machines: disjoint shards that together make what one run makes")
  func twoMachines() throws {
    let env = CLIEnvironment()
    let input = try table(env, count: 20, tag: String(UUID().uuidString.prefix(8)))
    let out = env.root.path + "/shared"
    for k in 0..<2 {
      let run = env.run([
        "export", "-i", input, "-o", out, "--shard", "\(k)/2", "--shard-size", "4",
        "--caption-col", "caption",
      ])
      #expect(
        run.status == 0 && run.stderr.contains("3 shards left to other machines"), "\(run.stderr)")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: out).filter {
      $0.hasSuffix(".tar")
    }
    #expect(names.sorted() == (0..<6).map { String(format: "%05d.tar", $0) })
    let checked = check(out)
    #expect(checked.status == 0 && checked.stdout == "6 shards 20 samples\n", "\(checked.stderr)")
  }

  @Test("a fleet: one machine fetches into the remote tier, another exports with no origin request")
  func fleetExport() throws {
    let (fetcher, exporter) = (CLIEnvironment(), CLIEnvironment())
    let tag = String(UUID().uuidString.prefix(8))
    let input = try table(fetcher, count: 8, tag: tag)
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let warm = fetcher.run(["prefetch", "-i", input] + remote)
    #expect(warm.status == 8, "\(warm.stderr)")  // the 404 row
    let before = requests(tag)
    let out = exporter.root.path + "/shards"
    let run = exporter.run(
      ["export", "-i", input, "-o", out, "--caption-col", "caption", "--shard", "0/1"] + remote)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(requests(tag) == before + 1, "only the 404 is asked again")
    let checked = check(out)
    #expect(checked.status == 0 && checked.stdout == "1 shards 8 samples\n", "\(checked.stderr)")
  }

  @Test("prefetch and job submit read tables; a header without the URL column is exit 2")
  func tablesElsewhere() throws {
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    let path = env.root.path + "/list.tsv"
    let text = "id\tlink\n1\t\(servers.fault("/image/base.png?t=\(tag)&pad=1"))\n2\n"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let run = env.run(["prefetch", "-i", path, "--url-col", "link"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("list.tsv, line 3: 1 fields where the header has 2; row skipped"))
    #expect(requests(tag) == 1)
    let missing = env.run(["prefetch", "-i", path])
    expectCleanError(missing, contains: "has no column 'url' (its columns: 'id', 'link')")
    #expect(missing.status == 2)
    let export = env.run(["export", "-i", path, "-o", env.root.path + "/x", "--url-col", "link"])
    #expect(export.status == 0, "\(export.stderr)")
  }

  @Test("a closed stdout ends the export after the shard in hand: whole shards only, quietly")
  func closedPipe() throws {
    let env = CLIEnvironment()
    let input = try table(env, count: 12, tag: String(UUID().uuidString.prefix(8)))
    let out = env.root.path + "/shards"
    let script =
      "\(imgcacheBinary) export --json -q -i \(input) -o \(out) --shard-size 2 | head -c 0; "
      + "echo status=${PIPESTATUS[0]}"
    let output = ImgCacheTestSupport.run("/bin/bash", ["-c", script], environment: env.environment)
    #expect(output.stdout.contains("status=0"), "\(output.stdout) \(output.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: out)
    let stats = names.filter { $0.hasSuffix("_stats.json") }.count
    #expect(stats >= 1 && stats < 7, "\(names)")
    #expect(names.filter { $0.hasPrefix(".") }.isEmpty, "\(names)")
  }

  @Test("a table grown since its last shard was written: that shard is made again, whole")
  func grownTable() throws {
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    let path = env.root.path + "/grow.csv"
    let urls = (0..<5).map { servers.fault("/image/base.png?t=\(tag)&pad=\($0)") }
    try ("url\n" + urls.prefix(3).joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let out = env.root.path + "/shards"
    let arguments = ["export", "-i", path, "-o", out, "--shard-size", "5"]
    #expect(env.run(arguments).status == 0)
    try ("url\n" + urls.joined(separator: "\n") + "\n")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let again = env.run(arguments)
    #expect(
      again.status == 0 && again.stderr.contains("exported 5 of 5 samples"), "\(again.stderr)")
    let stats =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: out + "/00000_stats.json"))) as? [String: Any]
    #expect(stats?["count"] as? Int == 5)
  }

  /// Requests the fault server had for URLs tagged `tag`.
  func requests(_ tag: String) -> Int {
    (servers.stats()?.requests ?? [:]).filter { $0.key.contains("t=\(tag)") }.values.reduce(0, +)
  }
}
