import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A table's columns beyond the URL in `prefetch`, `job` and `export`: `--verify-hash` refuses a
/// body whose digest differs from its row's, `--caption-col` and `--save-column` go into each
/// `--json` record and manifest line. Against the fault server's real images and Redis.
@Suite("Table columns in prefetch, job and export")
struct TableColumnsCLITests {
  let servers = TestServers.shared

  /// The SHA-256 of what the origin serves at `url`, read with curl.
  func sha256(of url: String) -> String {
    let digest = run("/bin/sh", ["-c", "curl -sf '\(url)' | sha256sum"])
    return String(digest.stdout.prefix(64))
  }

  /// A CSV table at `name` of `rows` (URL, caption, n, sha).
  func table(_ env: CLIEnvironment, _ name: String, _ rows: [(String, String, Int, String)])
    throws -> String
  {
    let lines = ["url,caption,n,sha"] + rows.map { "\($0.0),\"\($0.1)\",\($0.2),\($0.3)" }
    let path = env.root.path + "/" + name
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// A table at `name` of two new images: "a cat" with its right SHA-256, "a dog" with a
  /// wrong one (zeros).
  func goodAndBad(_ env: CLIEnvironment, _ name: String) throws
    -> (good: String, bad: String, path: String)
  {
    let tag = String(UUID().uuidString.prefix(8))
    let good = servers.fault("/image/base.png?t=\(tag)&pad=1")
    let bad = servers.fault("/image/base.png?t=\(tag)&pad=2")
    let path = try table(
      env, name,
      [(good, "a cat", 1, sha256(of: good)), (bad, "a dog", 2, String(repeating: "0", count: 64))])
    return (good, bad, path)
  }

  @Test(
    "--verify-hash refuses a differing body (exit 9, nothing stored); records keep captions and columns"
  )
  func prefetchChecks() throws {
    let env = CLIEnvironment()
    let (good, bad, path) = try goodAndBad(env, "t.csv")
    let arguments = [
      "prefetch", "--json", "-i", path, "--verify-hash", "sha:sha256", "--caption-col", "caption",
      "--save-column", "n", "--save-column", "sha",
    ]
    let first = env.run(arguments)
    #expect(first.status == 9, "\(first.stderr)")
    let records = CLIEnvironment.records(first)
    #expect(records.count == 2)
    let byURL = Dictionary(records.map { ($0["url"] as? String ?? "", $0) }) { a, _ in a }
    #expect(byURL[good]?["status"] as? String == "downloaded")
    #expect(byURL[good]?["caption"] as? String == "a cat")
    #expect((byURL[good]?["columns"] as? [String: Any])?["n"] as? String == "1")
    let refused = byURL[bad]?["error"] as? [String: Any]
    #expect(refused?["kind"] as? String == "digest_mismatch")
    #expect(byURL[bad]?["exit_code"] as? Int == 9 && byURL[bad]?["caption"] as? String == "a dog")
    #expect(env.run(["query", good]).status == 0)
    #expect(env.run(["query", bad]).status == 1, "a refused body was stored")
    // A variant: the original is checked before it is made, and again when it is found stored.
    let resized = env.run(["prefetch"] + arguments.dropFirst(2) + ["--resize", "8x8", "-q"])
    #expect(resized.status == 9, "\(resized.stderr)")
    let again = env.run(
      ["prefetch"] + arguments.dropFirst(2) + ["--resize", "8x8", "--json", "-q"])
    let statuses = CLIEnvironment.records(again).map { $0["status"] as? String ?? "" }.sorted()
    #expect(statuses == ["error", "hit"], "\(again.stdout)")
  }

  @Test("columns without a table are a usage error naming what is missing")
  func columnsNeedATable() {
    let env = CLIEnvironment()
    let url = servers.fault("/image/base.png?cols=1")
    let bare = env.run(["prefetch", "--caption-col", "caption", url])
    expectCleanError(bare, contains: "need a table to read (-i FILE)")
    #expect(bare.status == 2)
    let list = env.root.path + "/urls.txt"
    FileManager.default.createFile(atPath: list, contents: Data((url + "\n").utf8))
    let plain = env.run(["prefetch", "-i", list, "--save-column", "n"])
    expectCleanError(plain, contains: "is a plain list of URLs")
    #expect(plain.status == 2)
  }

  @Test("export --resize --verify-hash checks each row against its original, not the variant")
  func exportChecksOriginals() throws {
    let env = CLIEnvironment()
    let tag = String(UUID().uuidString.prefix(8))
    let url = servers.fault("/image/base.png?t=\(tag)&pad=3")
    let path = try table(
      env, "e.csv",
      [(url, "x", 1, sha256(of: url)), (url, "y", 2, String(repeating: "1", count: 64))])
    let out = env.root.path + "/out"
    let run = env.run([
      "export", "-i", path, "-o", out, "--resize", "8x8", "--verify-hash", "sha:sha256",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let rows = try String(contentsOfFile: out + "/00000.jsonl", encoding: .utf8)
      .split(separator: "\n").compactMap {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    #expect(rows.map { $0["status"] as? String } == ["success", "failed_to_download"])
    #expect(
      (rows[1]["error_message"] as? String)?.hasSuffix(
        "not the table's " + String(repeating: "1", count: 64)) == true)
  }

  @Test(
    "a job keeps each row beside its URL: the worker checks digests, the manifest keeps columns")
  func jobRows() throws {
    let fleet = JobFleet()
    let env = CLIEnvironment()
    let (good, bad, path) = try goodAndBad(env, "j.csv")
    let submitted = fleet.job(
      env,
      [
        "submit", "rows", "-i", path, "--verify-hash", "sha:sha256", "--caption-col", "caption",
        "--save-column", "n",
      ])
    try #require(submitted.status == 0, "\(submitted.stderr)")
    let worker = try fleet.worker("rows")
    let (status, said) = worker.finish()
    #expect(status == 0, "\(said)")
    let lines = fleet.manifest("rows")
    let byURL = Dictionary(lines.map { ($0["url"] as? String ?? "", $0) }) { a, _ in a }
    #expect(byURL[good]?["status"] as? String == "downloaded")
    #expect(byURL[good]?["caption"] as? String == "a cat")
    #expect((byURL[good]?["columns"] as? [String: Any])?["n"] as? String == "1")
    #expect((byURL[bad]?["error"] as? [String: Any])?["kind"] as? String == "digest_mismatch")
    #expect(byURL[bad]?["caption"] as? String == "a dog")
    #expect(worker.machine.run(["query", bad]).status == 1, "a refused body was stored")
    let list = env.root.path + "/plain.txt"
    FileManager.default.createFile(atPath: list, contents: Data((good + "\n").utf8))
    let plain = fleet.job(env, ["submit", "plain", "-i", list, "--caption-col", "caption"])
    expectCleanError(plain, contains: "is a plain list of URLs")
    #expect(plain.status == 2)
  }

  @Test("a variant whose original was discarded is checked by the digest its link keeps")
  func discardedOriginal() throws {
    let env = CLIEnvironment()
    let url = servers.fault("/image/base.png?t=\(UUID().uuidString.prefix(8))&pad=6")
    let right = try table(env, "right.csv", [(url, "a", 1, sha256(of: url))])
    let wrong = try table(env, "wrong.csv", [(url, "a", 1, String(repeating: "2", count: 64))])
    let arguments = ["--verify-hash", "sha:sha256", "--resize", "8x8", "--discard-original"]
    let first = env.run(["prefetch", "-i", right] + arguments)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(env.run(["query", url]).status == 1, "the original was discarded")
    let again = env.run(["prefetch", "--json", "-q", "-i", right] + arguments)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(CLIEnvironment.records(again).first?["status"] as? String == "hit", "\(again.stdout)")
    let list = env.root.path + "/failed.txt"
    let refused = env.run(
      ["prefetch", "--json", "-q", "-i", wrong, "--save-failed", list] + arguments)
    #expect(refused.status == 9, "\(refused.stderr)")
    // Listed as a comment: a rerun of the plain list would store the body unchecked.
    let saved = try String(contentsOfFile: list, encoding: .utf8)
    #expect(saved.hasPrefix("# digest_mismatch: ") && !saved.contains("\n" + url), "\(saved)")
  }
}
