import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// A derivation has a budget (docs/design.md, Variants): a JPEG of too many scans is refused
/// before it is decoded, one that takes longer than `derive_timeout` is stopped, a signal
/// leaves nothing in `tmp/`, and libvips' own reason is shown.
@Suite("imgcache variants: CPU bombs, time budget, leftovers, libvips' reasons", .serialized)
struct DerivationBudgetTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// Writes `bytes` under nginx's root; returns its URL.
  private func serve(_ bytes: [UInt8], as name: String) throws -> String {
    let file = "budget-\(UUID().uuidString.prefix(8))-\(name)"
    try Data(bytes).write(to: URL(fileURLWithPath: Fixtures.directory.path + "/" + file))
    return servers.nginx(file)
  }

  /// A 6000×6000 grey progressive JPEG with 2,000 more scans: about 15 s to decode.
  private func slowJPEG() throws -> String {
    let base = env.root.path + "/grey.jpg"
    let made = run(
      "/usr/bin/convert",
      ["-size", "6000x6000", "xc:gray50", "-colorspace", "Gray", "-interlace", "JPEG", base])
    #expect(made.status == 0, "\(made.stderr)")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base)))
    return try serve(try #require(progressiveJPEG(bytes, extraScans: 2_000)), as: "slow.jpg")
  }

  private var leftovers: [String] {
    DirectoryListing.names(atPath: env.cacheDirectory + "/tmp").filter { $0.hasPrefix("derive-") }
  }

  @Test("a progressive JPEG of more scans than max_scans is refused before decoding: exit 13")
  func tooManyScans() throws {
    let bomb = try #require(progressiveJPEG(Fixtures.bytes("progressive.jpg"), extraScans: 150))
    let url = try serve(bomb, as: "scans.jpg")
    let refused = env.run(["fetch", "--resize", "16x16", url])
    #expect(refused.status == 13, "\(refused.stderr)")
    #expect(refused.stderr.contains("more than 100 scans (max_scans)"), "\(refused.stderr)")
    #expect(env.run(["query", url]).status == 0, "the original is kept")
    // Within a higher limit, the same file is derived: the scans are valid.
    let allowed = env.run(
      ["fetch", "--resize", "16x16", url], environment: ["IMGCACHE_MAX_SCANS": "1000"])
    #expect(allowed.status == 0, "\(allowed.stderr)")
  }

  @Test("a derivation over derive_timeout is stopped: exit 13, nothing left, the prefetch goes on")
  func overBudget() throws {
    let slow = try slowJPEG()
    let good = servers.nginx("base.jpg?budget=\(UUID().uuidString)")
    let budget = ["IMGCACHE_MAX_SCANS": "100000", "IMGCACHE_DERIVE_TIMEOUT": "1s"]
    let prefetch = env.run(
      ["prefetch", "--resize", "64x64", "--save-failed", env.root.path + "/failed", slow, good],
      environment: budget)
    #expect(prefetch.status == 13, "\(prefetch.stderr)")
    #expect(prefetch.stderr.contains("took longer than 1s (derive_timeout)"), "\(prefetch.stderr)")
    #expect(env.run(["query", "--resize", "64x64", good]).status == 0, "the other URL's variant")
    #expect(env.run(["query", "--resize", "64x64", slow]).status == 1, "no variant stored")
    #expect(env.run(["query", slow]).status == 0, "the original is kept")
    #expect(leftovers.isEmpty, "left in tmp/: \(leftovers)")
  }

  @Test("SIGTERM during a derivation leaves nothing in tmp/", arguments: [SIGTERM, SIGINT])
  func signalLeavesNothing(signal: Int32) throws {
    let slow = try slowJPEG()
    #expect(env.run(["fetch", "--any", slow]).status == 0)
    let process = try env.start(
      ["fetch", "--resize", "64x64", slow],
      environment: ["IMGCACHE_MAX_SCANS": "100000", "IMGCACHE_DERIVE_TIMEOUT": "0s"])
    let deadline = Date().addingTimeInterval(30)
    while leftovers.isEmpty && process.isRunning && Date() < deadline { usleep(10_000) }
    #expect(!leftovers.isEmpty, "the derivation started")
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    #expect(process.terminationStatus == 128 + signal)
    #expect(leftovers.isEmpty, "left in tmp/: \(leftovers)")
  }

  @Test("libvips' own reason is shown, never 'unknown error' (an IHDR of no known colour type)")
  func libvipsReason() throws {
    var png = Fixtures.bytes("base.png")
    png[25] = 1  // the colour type: 1 is none of PNG's
    let crc = crc32(Array(png[12..<29]))
    png.replaceSubrange(29..<33, with: (0..<4).map { UInt8((crc >> (24 - 8 * UInt32($0))) & 0xFF) })
    let url = try serve(png, as: "colour.png")
    let result = env.run(["fetch", "--resize", "16x16", url])
    #expect(result.status == 13, "\(result.stderr)")
    #expect(!result.stderr.contains("unknown error"), "\(result.stderr)")
    #expect(result.stderr.contains("IHDR"), "\(result.stderr)")
  }

  private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
    }
    return ~crc
  }
}
