import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// Image variants (issue 23) through the command line: derived once from the cached original,
/// cached under their own key, served again without the origin or libvips.
@Suite("imgcache variants: fetch, query, prefetch with --resize and friends", .serialized)
struct VariantCLITests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  @Test(
    "fetch --resize prints the variant's path in data/, named by its derived key; original kept")
  func fetchDerives() throws {
    let (url, path) = VariantOriginals.url(VariantOriginals.photo)
    let first = env.run(["fetch", "--resize", "100x100", "--format", "webp", url])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stderr.isEmpty)
    let variant = printedPath(first)
    #expect(first.stdout == variant + "\n")
    #expect(variant.hasPrefix(env.cacheDirectory + "/data/"))
    let name = try VariantOriginals.fileName(url, "100x100 webp", .webp)
    #expect(variant.hasSuffix("/" + name), "\(variant) is not …/\(name)")
    #expect(identify(variant) == "WEBP 100 75")
    let original = env.run(["fetch", url])
    #expect(original.status == 0)
    #expect(identify(printedPath(original)) == "JPEG 400 300")
    #expect(servers.requests([path]) == 1, "the original was kept: no second request")
    let second = env.run(["fetch", "--resize", "100x100", "--format", "webp", url])
    #expect(second.stdout == first.stdout)
    #expect(servers.requests([path]) == 1)
    #expect(env.counter("derivations") == 1)
    #expect(env.counter("variant_hits") == 1)
    #expect(env.counter("derivation_failures") == 0)
  }

  @Test("--json: outcome derived then hit, and a variant object with spec, size, format, key")
  func json() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    let arguments = ["fetch", "--resize", "100x100", "--format", "webp", url]
    let first = try #require(env.record(arguments))
    #expect(outcome(first) == "derived")
    #expect(first["exit_code"] as? Int == 0)
    let variant = try #require(first["variant"] as? [String: Any])
    let spec = try #require(variant["spec"] as? String)
    #expect(spec.hasPrefix("v1,"))
    #expect(spec == (try VariantSpec.parse(preset: "100x100 webp")).canonical)
    #expect(variant["width"] as? Int == 100 && variant["height"] as? Int == 75)
    #expect(variant["format"] as? String == "webp")
    #expect(variant["original_key"] as? String == CacheKey.key(for: url))
    let path = try #require(first["path"] as? String)
    #expect(path.hasSuffix("/" + MD5.hex(of: CacheKey.key(for: url) + "#" + spec) + ".webp"))
    let second = try #require(env.record(arguments))
    #expect(outcome(second) == "hit")
    #expect(second["path"] as? String == path)
    #expect((second["variant"] as? [String: Any])?["spec"] as? String == spec)
  }

  @Test(
    "each geometry form gives its dimensions; never enlarged unless --enlarge",
    arguments: [
      (["--resize", "100x100"], "100 75"), (["--resize", "100x100^"], "100 100"),
      (["--resize", "100x100!"], "100 100"), (["--resize", "100x100>"], "100 75"),
      (["--resize", "100"], "100 75"), (["--resize", "x150"], "200 150"),
      (["--resize", "1000x1000"], "400 300"), (["--resize", "1000x1000", "--enlarge"], "1000 750"),
      (["--resize", "1000x1000^"], "400 300"), (["--resize", "50x100^"], "50 100"),
    ])
  func geometry(flags: [String], size: String) {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    let output = env.run(["fetch"] + flags + [url])
    #expect(output.status == 0, "\(flags): \(output.stderr)")
    #expect(identify(printedPath(output)) == "JPEG " + size, "\(flags)")
  }

  @Test(
    // ImageMagick calls every HEIF-family file HEIC: an AVIF is told apart by its ftyp brand.
    "--format writes that format, with its extension; same keeps the original's",
    arguments: [
      ("jpeg", "jpg", "JPEG"), ("png", "png", "PNG"), ("webp", "webp", "WEBP"),
      ("avif", "avif", "HEIC"), ("gif", "gif", "GIF"), ("same", "jpg", "JPEG"),
    ])
  func formats(format: String, fileExtension: String, magick: String) {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    let output = env.run(["fetch", "--resize", "40x40", "--format", format, url])
    #expect(output.status == 0, "\(format): \(output.stderr)")
    let path = printedPath(output)
    #expect(path.hasSuffix("." + fileExtension), "\(path)")
    #expect(identify(path) == magick + " 40 30")
    let head = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 12))
    let brand = head.map { String(decoding: $0.dropFirst(4), as: UTF8.self) }
    #expect((brand == "ftypavif") == (format == "avif"), "\(brand ?? "unreadable")")
  }

  @Test("--gravity picks what a ^ crop keeps; the other flags are written into the spec")
  func gravityAndFlags() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.halves, type: "image/png")
    for (gravity, expected) in [("north", "red"), ("south", "blue"), ("northwest", "red")] {
      let output = env.run(["fetch", "--resize", "100x20^", "--gravity", gravity, url])
      #expect(output.status == 0, "\(gravity): \(output.stderr)")
      #expect(identify(printedPath(output)) == "PNG 100 20")
      #expect(colour(printedPath(output)) == expected, "\(gravity)")
    }
    for (flag, field) in [
      ("--keep-metadata", "meta=1"), ("--no-rotate", "rot=0"), ("--animated", "anim=1"),
    ] {
      let record = env.record(["fetch", "--resize", "40x40", "--format", "webp", flag, url])
      let spec = (record?["variant"] as? [String: Any])?["spec"] as? String
      #expect(
        spec?.split(separator: ",").contains(Substring(field)) == true, "\(flag): \(spec ?? "none")"
      )
    }
  }

  @Test("--quality changes the bytes: q=20 is smaller than q=95, and another file")
  func quality() throws {
    let (url, _) = VariantOriginals.url(VariantOriginals.photo)
    let low = printedPath(env.run(["fetch", "--resize", "200", "--quality", "20", url]))
    let high = printedPath(env.run(["fetch", "--resize", "200", "--quality", "95", url]))
    #expect(low != high)
    let sizes = [low, high].map {
      (try? FileManager.default.attributesOfItem(atPath: $0)[.size]) as? Int ?? 0
    }
    #expect(sizes[0] > 0 && sizes[0] < sizes[1], "\(sizes)")
  }

  @Test("--offline derives from a cached original; without it, an offline miss (exit 1)")
  func offline() throws {
    let (url, path) = VariantOriginals.url(VariantOriginals.photo)
    #expect(env.run(["fetch", url]).status == 0)
    #expect(env.run(["query", "--resize", "64x64", url]).status == 1, "not derived yet")
    let derived = env.run(["fetch", "--offline", "--resize", "64x64", url])
    #expect(derived.status == 0, "\(derived.stderr)")
    #expect(identify(printedPath(derived)) == "JPEG 64 48")
    #expect(servers.requests([path]) == 1)
    #expect(env.counter("derivations") == 1)
    let query = env.run(["query", "--resize", "64x64", url])
    #expect(query.status == 0 && query.stdout == derived.stdout)
    #expect(env.run(["query", "--resize", "65x65", url]).status == 1)
    let (absent, absentPath) = VariantOriginals.url(VariantOriginals.photo)
    let miss = env.run(["fetch", "--offline", "--resize", "64x64", absent])
    #expect(miss.status == 1)
    #expect(miss.stdout.isEmpty)
    #expect(servers.requests([absentPath]) == 0)
  }

  @Test("--discard-original keeps the variant only; the variant still hits without the origin")
  func discardOriginal() {
    let (url, path) = VariantOriginals.url(VariantOriginals.photo)
    let first = env.run(["fetch", "--discard-original", "--resize", "64x64", url])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(identify(printedPath(first)) == "JPEG 64 48")
    #expect(env.run(["query", url]).status == 1, "the original was not kept")
    #expect(env.run(["list", "--originals", "--urls"]).stdout.isEmpty)
    #expect(env.files(under: "data").count == 1)
    #expect(env.run(["fetch", "--resize", "64x64", url]).stdout == first.stdout)
    #expect(servers.requests([path]) == 1)
  }

  @Test(
    "failures: exit 12 or 13 on one line, fast, nothing of the variant left in data/ or tmp/",
    arguments: [
      (VariantOriginals.bomb, "image/png", Int32(12), "max_pixels"),
      ("base.svg", "image/svg+xml", 13, "cannot derive"),
      (VariantOriginals.truncated, "image/jpeg", 13, "cannot derive"),
    ])
  func failures(name: String, type: String, status: Int32, message: String) {
    let (url, _) = VariantOriginals.url(name, type: type)
    let start = Date()
    let output = env.run(["fetch", "--resize", "100x100", "--format", "webp", url])
    #expect(Date().timeIntervalSince(start) < 5, "refused fast")
    #expect(output.status == status, "\(name): \(output.stderr)")
    #expect(output.stdout.isEmpty)
    expectCleanError(output, contains: message)
    #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
    #expect(env.files(under: "data").count <= 1, "only the original: \(env.files(under: "data"))")
    #expect(env.files(under: "tmp").isEmpty, "\(env.files(under: "tmp"))")
    #expect(env.run(["list", "--variants", "--urls"]).stdout.isEmpty)
    #expect(env.counter("derivation_failures") == 1)
    #expect(env.counter("derivations") == 0)
  }

  @Test(
    "bad variant flags: exit 2 naming the culprit, nothing fetched",
    arguments: [
      (["--resize", "0x0"], "0x0"), (["--quality", "0"], "quality"),
      (["--format", "tiff"], "tiff"), (["--variant", "nosuch"], "nosuch"),
    ])
  func badFlags(flags: [String], culprit: String) {
    let (url, path) = VariantOriginals.url(VariantOriginals.photo)
    for command in ["fetch", "query", "prefetch"] {
      let output = env.run([command] + flags + [url])
      #expect(output.status == 2, "\(command) \(flags): \(output.stderr)")
      expectCleanError(output, contains: culprit)
      #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
    }
    #expect(servers.requests([path]) == 0)
  }
}
