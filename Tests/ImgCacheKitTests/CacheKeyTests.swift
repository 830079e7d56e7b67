import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheUntrusted

@Suite("Cache keys and file names (SDWebImage §1.1–§1.3)")
struct CacheKeyTests {
  @Test(
    "SDWebImage's own vectors",
    arguments: [
      ("TestImageKey.jpg", "f77fd0b2d2c9780cce3b1cf4f047030a.jpg"),
      ("https://placehold.co/50x50.jpg", "e9936aba8d7f7fcca7813d72290de957.jpg"),
      (
        "https://maps.googleapis.com/maps/api/staticmap?center=48.8566,2.3522&format=png&maptype=roadmap&scale=2&size=375x200&zoom=15",
        "e71fc3239f5147046b9e7f07ad7e7d61"
      ),
      (
        "https://imggen.alicdn.com/3b11cea896a9438329d85abfb07b30a8.jpg?aid=tanx&tid=1166",
        "8795302bf948a3f1ed674afb6b28a94e.jpg"
      ),
      ("http://q1.qlogo.cn/g?b=qq&nk=3388643380&s=640", "36dce078b0e2bd805c1c149ee30a88ce"),
    ])
  func vectors(key: String, expected: String) {
    #expect(CacheKey.fileName(for: key) == expected)
  }

  @Test("a percent-encoded NUL is decoded and stripped (#3744, test49a)")
  func percentNul() {
    let key =
      "http://e.hiphotos.baidu.com/image/pic/item/a1ec08fa513d2697e542494057fbb2fb4316d81e.jpg00%00"
    #expect(CacheKey.fileExtension(of: key) == "jpg00")
    #expect(CacheKey.fileName(for: key).hasSuffix(".jpg00"))
  }

  @Test("the extension comes from the path only, never the query or fragment (test35, test36)")
  func pathOnly() {
    #expect(CacheKey.fileExtension(of: "https://a.example/img?file=x.png") == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/p/photo.JPEG?v=1.2#frag.gif") == "JPEG")
    #expect(
      CacheKey.fileExtension(of: "https://a.example/a.jpg?" + String(repeating: "q", count: 500))
        == "jpg")
    #expect(CacheKey.fileExtension(of: "https://host.example.com") == nil)
    #expect(CacheKey.fileExtension(of: "https://host.example.com/") == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/dir.d/file") == nil)
  }

  @Test("empty, hidden, too long and unsafe extensions are dropped (test37 and DESIGN §2)")
  func droppedExtensions() {
    #expect(CacheKey.fileExtension(of: "https://a.example/name.") == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/.png") == nil)
    let long = String(repeating: "x", count: 223)
    #expect(CacheKey.fileExtension(of: "https://a.example/a." + long) == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/a." + String(long.dropFirst())) != nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/a.p%2Fng") == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/a.p%20g") == nil)
    #expect(CacheKey.fileExtension(of: "https://a.example/a.j:p:g") == "jpg")
    #expect(CacheKey.fileExtension(of: "https://a.example/a.tar-gz_1") == "tar-gz_1")
    #expect(CacheKey.fileExtension(of: "https://a.example/a.%C3%A9") == nil)
  }

  @Test("keys drop the fragment; strip-query drops the query too")
  func keys() {
    #expect(CacheKey.key(for: "https://a.example/x.png?s=1#top") == "https://a.example/x.png?s=1")
    #expect(
      CacheKey.key(for: "https://a.example/x.png?s=1#top", filter: .stripQuery)
        == "https://a.example/x.png")
    #expect(CacheKey.key(for: "https://a.example/x.png") == "https://a.example/x.png")
  }

  @Test("scale from the key, as SDImageScaleFactorForKey (testSDScaledImageForKey)")
  func scale() {
    #expect(CacheKey.scale(of: "test@2x.gif") == 2)
    #expect(CacheKey.scale(of: "https://a.example/icon@3x.png") == 3)
    #expect(CacheKey.scale(of: "https://a.example/icon%402x.png") == 2)
    #expect(CacheKey.scale(of: "file%402x.png") == 1)
    #expect(CacheKey.scale(of: "@2x.png") == 1)
    #expect(CacheKey.scale(of: "https://a.example/icon.png") == 1)
  }

  @Test("MD5 through OpenSSL matches RFC 1321's test suite")
  func md5() {
    #expect(MD5.hex(of: "") == "d41d8cd98f00b204e9800998ecf8427e")
    #expect(MD5.hex(of: "abc") == "900150983cd24fb0d6963f7d28e17f72")
    #expect(MD5.hex(of: "message digest") == "f96b697d7cb7938d525a2f31aaf161d0")
  }

  @Test("SHA-256 and SHA-1 through OpenSSL match FIPS 180's examples, whole and streamed")
  func sha() throws {
    let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    #expect(
      SHA256.hex(of: Array("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(SHA256.empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA1.hex(of: Array("abc".utf8)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(SHA1.hex(of: Array(twoBlocks.utf8)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    let stream = SHA256Stream()
    for byte in twoBlocks.utf8 { [byte].withUnsafeBytes { stream.update($0) } }
    #expect(stream.finish() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    // A finished stream starts over.
    Array("abc".utf8).withUnsafeBytes { stream.update($0) }
    #expect(stream.finish() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test("userinfo is found on the bytes: first ://, authority up to / ? #, last @ in it")
  func userinfo() {
    #expect(CacheKey.withoutUserinfo("http://u:p@h.example/a@b.png") == "http://h.example/a@b.png")
    #expect(CacheKey.redacted("https://u@p@h.example?x@y") == "https://***@h.example?x@y")
    #expect(CacheKey.redacted("http://h.example/p#u@h") == "http://h.example/p#u@h")
    #expect(CacheKey.redacted("hé://ü:p@h/é") == "hé://***@h/é")
    #expect(CacheKey.withoutUserinfo("no scheme u@h") == "no scheme u@h")
    #expect(URLText.schemeSeparator(in: "a:/b://c").map { "a:/b://c"[$0] } == "://")
    #expect(URLText.schemeSeparator(in: "http:/") == nil)
    #expect(URLText.schemeSeparator(in: "") == nil)
    #expect(URLText.host(of: "http://u:p@Host.Example:81/x") == "host.example:81")
    #expect(URLText.host(of: "https://a@b@C.example?x@y/z") == "c.example")
    #expect(URLText.host(of: "http://H.example#u@h") == "h.example")
    #expect(URLText.host(of: "http://h.example/p@q") == "h.example")
    #expect(URLText.host(of: "http://ÜBER.Example/x") == "über.example")
    #expect(URLText.host(of: "http://u@/x") == "")
    #expect(URLText.host(of: "no scheme") == "")
  }

  @Test("a request URL's one-pass check accepts only what the full checks accept unchanged")
  func plainURLs() throws {
    let samples = [
      "http://a.example/x.png", "HTTPS://A.example:8443/x?y=1#z", "http://[::1]:80/x",
      "http://a.example", "https://a.example/p a t h.png", "http://u:p@a.example/x",
      "http://:80/x", "http:///x", "ftp://a.example/x", "http:/a.example", "http://a b/x",
      "http://a.example/\u{7F}", "http://a.example/\u{85}", "http://ä.example/x",
      "httpx://a.example/x", "https://a.example/x\ty", "http://a@b/x", "http://a.example?@x",
      "http://a.example#@", "http://", "https://", "", "http://::/x", "http://a/@x",
    ]
    // Every sample, and every one of its prefixes and single-byte changes.
    var urls = Set(samples)
    for sample in samples {
      let bytes = Array(sample.utf8)
      for end in bytes.indices { urls.insert(String(decoding: bytes[..<end], as: UTF8.self)) }
      for position in bytes.indices {
        for byte: UInt8 in [0x00, 0x0A, 0x20, 0x23, 0x2F, 0x3A, 0x3F, 0x40, 0x7F, 0xC3] {
          var changed = bytes
          changed[position] = byte
          urls.insert(String(decoding: changed, as: UTF8.self))
        }
      }
    }
    var plain = 0
    for url in urls where RequestURL.isPlain(url) {
      plain += 1
      let parts = try RequestURL.takeApart(url)
      #expect(parts.stripped == url && parts.display == url && parts.credentials == nil, "\(url)")
    }
    #expect(plain > 100 && plain < urls.count)
  }
}
