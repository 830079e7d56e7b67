import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Synchronization
import Testing

/// Variants across commands and processes: list, remove, presets from the policy, prefetch,
/// and several processes asking for one variant at once.
@Suite("imgcache variants: list, remove, presets, prefetch, processes", .serialized)
struct VariantCLIManagementTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test("list --variants and --originals filter; list --json says variant_of (key or null)")
  func list() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    for size in ["100x100", "40x40"] {
      #expect(env.run(["fetch", "--resize", size, url]).status == 0)
    }
    let records = CLIEnvironment.records(env.run(["list", "--json"]))
    #expect(records.count == 3)
    let key = CacheKey.key(for: url)
    #expect(records.filter { $0["variant_of"] as? String == key }.count == 2)
    #expect(records.filter { $0["variant_of"] is NSNull }.count == 1)
    let variants = CLIEnvironment.records(env.run(["list", "--variants", "--json"]))
    #expect(variants.count == 2 && variants.allSatisfy { $0["variant_of"] as? String == key })
    let originals = CLIEnvironment.records(env.run(["list", "--originals", "--json"]))
    #expect(originals.count == 1 && originals.first?["variant_of"] is NSNull)
    #expect(env.run(["list", "--originals", "--urls"]).stdout == url + "\n")
    let paths = env.run(["list", "--variants", "--paths"]).stdout.split(separator: "\n")
    #expect(paths.map { identify(String($0)) }.sorted() == ["JPEG 100 75", "JPEG 40 30"])
  }

  @Test("clean counts variants like any entry; size --by variant groups them by spec")
  func cleanAndSize() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    #expect(env.run(["fetch", "--resize", "100x100", url]).status == 0)
    #expect(env.run(["fetch", "--resize", "40x40", url]).status == 0)
    let groups =
      CLIEnvironment.records(env.run(["size", "--json", "--by", "variant"]))
      .first?["groups"] as? [[String: Any]] ?? []
    #expect(groups.count == 3 && groups.contains { $0["name"] as? String == "original" })
    #expect(groups.allSatisfy { $0["entries"] as? Int == 1 })
    // Three entries over a limit of two: trimmed to strictly below it, least recently used
    // first (the first variant, then the original, used again for the second).
    #expect(env.run(["clean", "--max-entries", "2", "--target", "1"]).status == 0)
    #expect(env.files(under: "data").count == 1)
    #expect(env.counter("evictions_count") == 2)
    #expect(env.run(["query", "--resize", "40x40", url]).status == 0, "the last used stays")
  }

  @Test("SIGINT during a prefetch of variants: no derivation starts after it; the run winds down")
  func interruptedDerivations() throws {
    let urls = (0..<80).map { _ in
      VariantOriginals.url(VariantOriginals.large, type: "image/png").url
    }
    #expect(env.run(["prefetch", "-q", "-j", "16"] + urls).status == 0)
    // -j 16: a window of 64 jobs, two derivations at a time (two cores at most): the jobs
    // waiting for a slot would take seconds, far past the 0.8 s grace, if they still started.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: imgcacheBinary)
    process.arguments = ["prefetch", "-j", "16", "--resize", "64x64"] + urls
    process.environment = env.environment
    let stderr = Pipe()
    (process.standardOutput, process.standardError) = (FileHandle.nullDevice, stderr)
    try process.run()
    let deadline = Date().addingTimeInterval(30)
    while env.counter("derivations") ?? 0 < 2 && Date() < deadline { usleep(20_000) }
    kill(process.processIdentifier, SIGINT)
    let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130)
    // The summary is printed only when the work wound down before the grace ran out.
    #expect(text.contains("prefetch interrupted"), "\(text)")
    #expect(env.files(under: "tmp").isEmpty, "\(env.files(under: "tmp"))")
  }

  @Test("remove --resize removes that variant only; remove URL the original and every variant")
  func remove() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    let big = printedPath(env.run(["fetch", "--resize", "100x100", url]))
    let small = printedPath(env.run(["fetch", "--resize", "40x40", url]))
    #expect(env.files(under: "data").count == 3)
    let one = env.run(["remove", "--resize", "100x100", url])
    #expect(one.status == 0, "\(one.stderr)")
    #expect(!FileManager.default.fileExists(atPath: big))
    #expect(FileManager.default.fileExists(atPath: small))
    #expect(env.run(["query", url]).status == 0, "the original stays")
    #expect(env.run(["query", "--resize", "100x100", url]).status == 1)
    #expect(env.run(["query", "--resize", "40x40", url]).status == 0)
    #expect(env.run(["remove", "--resize", "100x100", url]).status == 1, "already gone")
    let all = env.run(["remove", url])
    #expect(all.status == 0, "\(all.stderr)")
    #expect(!FileManager.default.fileExists(atPath: small))
    #expect(env.run(["query", "--resize", "40x40", url]).status == 1)
    #expect(env.files(under: "data").isEmpty, "\(env.files(under: "data"))")
    #expect(env.run(["list"]).stdout.isEmpty)
    #expect(env.run(["size", "--bytes"]).stdout == "0\n")
  }

  @Test("--variant NAME: presets from imgcache.conf and config set, the same key as the flags")
  func presets() throws {
    try FileManager.default.createDirectory(
      atPath: env.cacheDirectory, withIntermediateDirectories: true)
    try "variant.small = 50 png\n".write(
      toFile: env.cacheDirectory + "/imgcache.conf", atomically: true, encoding: .utf8)
    let set = env.run(["config", "set", "variant.thumb", "60x60^ webp q=75"])
    #expect(set.status == 0, "\(set.stderr)")
    let config = env.run(["config"]).stdout
    #expect(config.contains("variant.thumb") && config.contains("variant.small"), "\(config)")
    let (url, path) = VariantOriginals.url(VariantOriginals.photo)
    let thumb = env.run(["fetch", "--variant", "thumb", url])
    #expect(thumb.status == 0, "\(thumb.stderr)")
    #expect(identify(printedPath(thumb)) == "WEBP 60 60")
    let flags = env.record([
      "fetch", "--resize", "60x60^", "--format", "webp", "--quality", "75", url,
    ])
    #expect(outcome(flags) == "hit", "a preset and its flags are one variant")
    #expect(flags?["path"] as? String == printedPath(thumb))
    let small = env.run(["fetch", "--variant", "small", url])
    #expect(small.status == 0, "\(small.stderr)")
    #expect(identify(printedPath(small)).hasPrefix("PNG 50 "))
    #expect(servers.requests([path]) == 1)
    let bad = env.run(["config", "set", "variant.broken", "60x60^ tiff"])
    #expect(bad.status == 2)
    expectCleanError(bad, contains: "tiff")
  }

  @Test("a variant of a replaced original (another SHA-256 after --reload) is derived again")
  func changedOriginal() throws {
    let name = "variant-changing-\(UUID().uuidString.prefix(8)).png"
    let image = { (size: String) in
      run("/usr/bin/convert", ["-size", size, "xc:green", VariantOriginals.root + name]).status
    }
    #expect(image("400x300") == 0)
    let url = servers.nginx(name)
    let first = env.run(["fetch", "--resize", "40x40", url])
    #expect(identify(printedPath(first)) == "PNG 40 30", "\(first.stderr)")
    #expect(image("400x100") == 0)
    #expect(env.run(["fetch", "--reload", url]).status == 0)
    let hits = env.counter("hits_local") ?? -1
    let again = env.record(["fetch", "--resize", "40x40", url])
    #expect(outcome(again) == "derived")
    // A use of the original, none of the variant out of date (found, refused, not served).
    #expect(env.counter("hits_local") == hits + 1)
    #expect(identify(again?["path"] as? String ?? "") == "PNG 40 10")
    #expect(env.counter("derivations") == 2)
    let copy = env.root.path + "/thumb.png"
    let output = env.run(["fetch", "-o", copy, "--resize", "40x40", url])
    #expect(output.stdout == copy + "\n" && identify(copy) == "PNG 40 10", "\(output.stderr)")
  }

  @Test("prefetch --resize derives each URL of a list; a second run is all hits")
  func prefetch() throws {
    let originals = (0..<3).map { _ in VariantOriginals.url(VariantOriginals.photo) }
    let list = env.root.path + "/urls.txt"
    try originals.map(\.url).joined(separator: "\n").write(
      toFile: list, atomically: true, encoding: .utf8)
    let cold = env.run(["prefetch", "--resize", "64x64", "-i", list])
    #expect(cold.status == 0, "\(cold.stderr)")
    #expect(cold.stdout.isEmpty)
    #expect(env.counter("derivations") == 3)
    for (url, _) in originals {
      let query = env.run(["query", "--resize", "64x64", url])
      #expect(query.status == 0 && identify(printedPath(query)) == "JPEG 64 48")
    }
    let warm = CLIEnvironment.records(
      env.run(["prefetch", "--json", "--resize", "64x64", "-i", list]))
    #expect(warm.count == 3 && warm.allSatisfy { outcome($0) == "hit" }, "\(warm)")
    #expect(env.counter("derivations") == 3)
    #expect(servers.requests(originals.map(\.path)) == 3)
  }

  @Test("four processes ask for one variant at once: one origin request, one derivation")
  func fourProcesses() throws {
    let (url, path) = VariantOriginals.url(VariantOriginals.photo, "&delay=0.5")
    let outputs = Mutex([ProcessOutput]())
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      let output = env.run(["fetch", "--resize", "64x64^", "--format", "webp", url])
      outputs.withLock { $0.append(output) }
    }
    let results = outputs.withLock { $0 }
    #expect(results.count == 4)
    for result in results {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout == results.first?.stdout)
    }
    #expect(identify(printedPath(results[0])) == "WEBP 64 64")
    #expect(servers.requests([path]) == 1)
    #expect(env.counter("derivations") == 1)
    #expect(env.files(under: "data").count == 2)
  }
}
