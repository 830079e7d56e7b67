import FoundationEssentials
import Glibc

/// The untrusted-input boundary as one entry point, for the fuzzer (`make fuzz`): each target
/// is one parser that values from outside go through. A hostile input must come back as
/// "refused" (false), never as a trap or a hang.
public enum Boundary {
  /// One parser of outside values.
  public enum Target: String, CaseIterable, Sendable {
    /// `Date`, `Expires`, `Last-Modified` (RFC 9110 §5.6.7).
    case httpDate = "http-date"
    /// `Cache-Control` directives and the freshness verdict they lead to (RFC 9111).
    case cacheControl = "cache-control"
    /// `Age`, `Content-Length` (delta-seconds and lengths).
    case age
    /// `Content-Range` of a 206.
    case contentRange = "content-range"
    /// A response header line as libcurl hands it over.
    case headerLine = "header-line"
    /// The trailer at the end of an HTTP/WebDAV/S3 remote object (metadata JSON).
    case remoteTrailer = "remote-trailer"
    /// A line of a policy file, and `config set`'s check of a value.
    case configLine = "config-line"
    /// A `remote_storage` value.
    case remoteStorage = "remote-storage"
    /// An SVG's root tag (width, height, viewBox).
    case svg
    /// A robots.txt (RFC 9309), and its rules matched against paths.
    case robotsTxt = "robots-txt"
    /// `X-Robots-Tag` lines.
    case robotsTag = "x-robots-tag"
    /// A URL table (`-i TABLE`): as CSV, TSV, JSON lines and gzip.
    case table
    /// A JPEG's header segments as the direct JPEG path reads them (size, components, EXIF
    /// orientation, ICC profile). Its input is text whose scalars are the bytes (U+00FF is the
    /// byte FF), so a seed can hold any byte.
    case jpegLayout = "jpeg-layout"
    /// A job shard's `rows` field as a worker reads it back from Redis (digests, captions,
    /// saved columns beside the URLs).
    case shardRows = "shard-rows"
    /// The use journal (`index.sqlite-uses`), where hits leave their uses and counts.
    case useJournal = "use-journal"
  }

  /// A sample input of `target` for a fuzzer to start from.
  public static func seeds(_ target: Target) -> [String] {
    switch target {
    case .httpDate:
      return [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
      ]
    case .cacheControl:
      return ["max-age=60, must-revalidate", "no-store, must-understand", "stale-if-error=\"30\""]
    case .age: return ["7200", "7200, 0", "0"]
    case .contentRange: return ["bytes 100-199/200", "bytes 0-0/*"]
    case .headerLine: return ["Content-Encoding: gzip\r\n", "ETag: \"a\"\r\n"]
    case .remoteTrailer:
      return [
        #"{"key":"https://a.example/x.png","url":"https://a.example/x.png","size":4,"#
          + #""sha256":"230d8358dc8e8890b4c58deeb62912ee2f20357ae92a5cc861b98e68fe31acb5","#
          + #""width":1,"height":2,"etag":"\"e\"","received":4102444800}"#
      ]
    case .configLine:
      return [
        "jobs = 4  # comment", "user_agent = imgcache", "max_age = 7d", "max_pixels = 50000000",
        "variant.thumb = 320x320^ webp q=75 gravity=north",
      ]
    case .remoteStorage:
      return ["redis://:secret@127.0.0.1:6379|connect-timeout=100", "s3://bucket/p|region=x"]
    case .svg: return [#"<svg width="10" height="20" viewBox="0 0 10 20"></svg>"#]
    case .robotsTxt:
      return [
        "User-agent: *\nDisallow: /private/\nAllow: /private/ok*.png$\n",
        "user-agent: imgcache/2\r\nuser-agent: other\r\ndisallow: /%7Ea/*x # c\r\n",
      ]
    case .robotsTag: return ["noimageai", "googlebot: noindex, imgcache: noai", "none"]
    case .table:
      return [
        "url,caption,h\nhttp://a/1.png,\"a, \"\"b\"\"\nc\",\n",
        "{\"url\": \"http://a/1.png\", \"caption\": [1, {\"x\": null}], \"h\": \"0123456789abcdef0123456789ABCDEF\"}\n",
      ]
    case .jpegLayout:
      // SOI, APP1 Exif (big-endian, orientation 6), APP2 ICC_PROFILE, SOF0 of 3 components, SOS.
      return [
        "\u{FF}\u{D8}\u{FF}\u{E1}\0\u{22}Exif\0\0MM\0*\0\0\0\u{8}\0\u{1}\u{1}\u{12}\0\u{3}\0\0\0\u{1}"
          + "\0\u{6}\0\0\0\0\0\0\u{FF}\u{E2}\0\u{10}ICC_PROFILE\0\u{1}\u{1}"
          + "\u{FF}\u{C0}\0\u{11}\u{8}\0\u{10}\0\u{20}\u{3}\u{1}\u{22}\0\u{2}\u{11}\u{1}\u{3}\u{11}\u{1}"
          + "\u{FF}\u{DA}\0\u{2}"
      ]
    case .shardRows:
      return [
        #"{"caption":"a\nb","saved":[1,{"x":null}],"sha256":""# + String(repeating: "ab", count: 32)
          + "\"}\n{}",
        #"{"md5":"0123456789abcdef0123456789abcdef"}"#,
      ]
    case .useJournal:
      return [
        "\n+\nu 5caddc303a53ea462ab4ad665ffcb6d5 1796006333.8478112 1\nc hits_local 1\n.\n",
        "\n+\nc lookups 2\nu 0123456789abcdef0123456789abcdef 1e9 4294967296\n.\n+\nc",
      ]
    }
  }

  /// Feeds `bytes` to the parser of `target`; returns whether it took them as valid.
  @discardableResult
  public static func feed(_ target: Target, _ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self)
    switch target {
    case .httpDate:
      return HTTPDate.parse(text) != nil
    case .cacheControl:
      let stored = Date(timeIntervalSince1970: 784_111_777)
      let verdict = FreshnessPolicy().verdict(
        ResponseFreshness(cacheControl: text, expires: text, date: text, age: text),
        lastModified: text, stored: stored, at: stored.addingTimeInterval(60))
      return CacheDirectives(text).allowsStoring(status: 200) && verdict.isFresh
    case .age:
      return HTTPFields.age(text) != nil || HTTPFields.contentLength(text) != nil
    case .contentRange:
      return ContentRange(text) != nil
    case .headerLine:
      return bytes.withUnsafeBytes { HeaderLine.parse($0) } != nil
    case .remoteTrailer:
      return remoteTrailer(bytes)
    case .configLine:
      for line in ConfigFile.lines(of: text) {
        guard case .assignment(let name, let value) = ConfigFile.parse(line),
          let key = PolicyKey.named(name), value.isSingleLine
        else { continue }
        var scratch = Configuration()
        _ = try? key.apply(&scratch, value)
      }
      return text.isSingleLine
    case .remoteStorage:
      _ = RemoteSpec.redactList(text)
      return (try? RemoteSpec.parseList(text)) != nil
    case .svg:
      return ImageSniffer.sniff(data: bytes) != nil
    case .robotsTxt:
      let rules = RobotsRules.parse(bytes, agent: RobotsTag.agent)
      // Kept in the index and read back as the same rules; paths the file names decided.
      guard RobotsRules(encoded: rules.encoded) == rules else { return false }
      for path in ["/", "/private/ok1.png", text, "/" + text] { _ = rules.deciding(path) }
      return !rules.rules.isEmpty
    case .robotsTag:
      return RobotsTag.optOut(in: text.split(separator: "\n").map(String.init), agent: "imgcache")
        != nil
    case .table:
      return table(bytes)
    case .jpegLayout:
      return JPEGParser.layout(
        data: text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        != nil
    case .shardRows:
      let count = text.split(separator: "\n", omittingEmptySubsequences: false).count
      return ShardRows.notes(text[...], count: count) != nil
    case .useJournal:
      return !UseJournal.parse(bytes, now: 2e9).isEmpty
    }
  }

  /// Reads `bytes` as a table of each form, and as gzip: a row or a refusal, never a trap.
  private static func table(_ bytes: [UInt8]) -> Bool {
    let columns = TableColumns(caption: "caption", hash: ("h", .md5))
    var rows = 0
    for (format, gzip) in [(TableFormat.csv, false), (.tsv, false), (.jsonl, false), (.csv, true)] {
      guard
        let reader = try? TableReader(
          MemoryBytes(bytes), name: "fuzz", format: format, gzip: gzip, columns: columns)
      else { continue }
      while let item = try? reader.next(), item != .end {
        if case .row = item { rows += 1 }
      }
    }
    return rows > 0
  }

  /// A body, then `bytes` as the trailer's metadata, its length and the magic, read back the
  /// way a remote object is.
  private static func remoteTrailer(_ bytes: [UInt8]) -> Bool {
    var object = Data("body".utf8) + Data(bytes)
    var length = UInt64(bytes.count).littleEndian
    object += Data(bytes: &length, count: 8) + RemoteEnvelope.magic
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "imgcache-fuzz-\(getpid())"
    ).path
    defer { unlink(path) }
    guard FileManager.default.createFile(atPath: path, contents: object),
      let metadata = try? RemoteEnvelope.open(path)
    else { return false }
    // Then the one validator every remote object passes (key, size, SHA-256, header values).
    return
      (try? metadata.validated(
        forKey: metadata.key ?? "", body: path, maxSize: 1 << 20, acceptAnyBody: true, now: Date()))
      != nil
  }
}
