import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit

/// `remote_storage` values are untrusted text that may hold passwords: parsed into parts,
/// bounded, and printed only through labels built from those parts.
@Suite("remote_storage parsing: bounds and redaction")
struct RemoteSpecTests {
  /// The message of the error `text` is refused with.
  private func refusal(_ text: String) -> String? {
    do {
      _ = try RemoteSpec.parseList(text)
      return nil
    } catch let error as CacheError {
      return error.message
    } catch {
      return "\(error)"
    }
  }

  @Test(
    "timeouts are finite, above 0 and at most an hour",
    arguments: [
      "connect-timeout=inf", "connect-timeout=nan", "operation-timeout=1e300",
      "operation-timeout=-5", "operation-timeout=0", "connect-timeout=2h",
      "operation-timeout=3600001", "connect-timeout=infms",
    ])
  func boundedTimeouts(attribute: String) throws {
    let message = try #require(refusal("redis://127.0.0.1:6379|\(attribute)"))
    #expect(message.contains("at most 1h"), "\(message)")
  }

  @Test("timeouts within bounds")
  func goodTimeouts() throws {
    let spec = try RemoteSpec.parse("redis://h|connect-timeout=250|operation-timeout=1h")
    #expect(spec.connectTimeout == 0.25 && spec.operationTimeout == 3_600)
    #expect(try RemoteSpec.parse("redis://h|operation-timeout=1500ms").operationTimeout == 1.5)
  }

  @Test(
    "ports are 1 to 65535, for Redis, HTTP, shards and S3 endpoints",
    arguments: [
      "redis://127.0.0.1:99999999999", "redis://127.0.0.1:0", "redis://h:65536",
      "http://127.0.0.1:99999999999/cache", "https://h:-1/x", "redis://h:6x",
      "redis://h:*|shards=6379,99999999999", "s3://b|endpoint=http://h:70000",
      "redis://h:|read-only",
    ])
  func ports(text: String) throws {
    let message = try #require(refusal(text))
    #expect(message.contains("port") || message.contains("no host"), "\(message)")
  }

  @Test("good ports and hosts")
  func goodPorts() throws {
    #expect(try RemoteSpec.parse("redis://h:65535").display == "redis://h:65535")
    #expect(try RemoteSpec.parse("redis://[::1]:6379/2").display == "redis://[::1]:6379/2")
    let servers = try RemoteSpec.parse("redis://127.0.0.1:*|servers=6379,6380")
    #expect(servers.serverURLs.map(\.url) == ["redis://127.0.0.1:6379", "redis://127.0.0.1:6380"])
    #expect(servers.serverURLs.map(\.name) == ["6379", "6380"])
    // The old spelling reads the same; both at once is refused.
    let old = try RemoteSpec.parse("redis://127.0.0.1:*|shards=6379,6380")
    #expect(old.servers == servers.servers)
    #expect(throws: CacheError.self) {
      try RemoteSpec.parse("redis://127.0.0.1:*|servers=6379|shards=6380")
    }
  }

  @Test(
    "a raw reserved character in a password is refused without printing it",
    arguments: ["Qx|Zk", "Qx#Zk", "Qx?Zk", "Qx@Zk", "Qx/Zk", "Qx Zk", "Qx%zzZk", "QxäZk"])
  func reservedInPassword(password: String) throws {
    for url in [
      "redis://:\(password)@127.0.0.1:6379", "redis://me:\(password)@127.0.0.1:6379/1",
      "http://me:\(password)@127.0.0.1/cache|layout=flat", "https://me:\(password)@h",
    ] {
      let message = try #require(refusal(url), "\(url)")
      #expect(!message.contains("Qx") && !message.contains("Zk") && !message.contains("me:"))
      #expect(message.contains("backend "), "\(message)")
    }
  }

  @Test("labels: scheme, host, port and path only; config shows secret attributes as ***")
  func labels() throws {
    let redis = try RemoteSpec.parse("redis://me:pa%23ss%40x@127.0.0.1:6379/2")
    #expect(redis.display == "redis://***@127.0.0.1:6379/2")
    let http = try RemoteSpec.parse(
      "https://u:p%7Cw@dav.internal/img?token=abc#x|bearer-token=tok|layout=flat")
    #expect(http.display == "https://***@dav.internal/img")
    #expect(
      http.displayWithAttributes == "https://***@dav.internal/img|bearer-token=***|layout=flat")
    let s3 = try RemoteSpec.parse("s3://b/p|secret-key=zz|endpoint=http://127.0.0.1:9000")
    #expect(!s3.displayWithAttributes.contains("zz"))
    #expect(s3.displayWithAttributes.contains("endpoint=http://127.0.0.1:9000"))
    let list = RemoteSpec.redactList("redis://:pa%20ss@h:1 http://u:p@h2/x|bearer-token=t0k")
    #expect(list == "redis://***@h:1 http://***@h2/x|bearer-token=***", "\(list)")
  }

  @Test("a token that is not a backend is named by its number, never printed")
  func unknownToken() throws {
    // A space inside a password splits the list: the rest is no backend.
    let split = try #require(refusal("redis://:first half@127.0.0.1:6379"))
    #expect(split.contains("backend ") && !split.contains("half") && !split.contains("first"))
    let scheme = try #require(refusal("redis://h ftp://u:hidden@h"))
    #expect(scheme.contains("backend 2") && !scheme.contains("hidden"), "\(scheme)")
    let attribute = try #require(refusal("redis://h|s3cr3t"))
    #expect(!attribute.contains("s3cr3t"), "\(attribute)")
    #expect(RemoteSpec.redactList("redis://h:1 nonsense@secret") == "redis://h:1 ***")
  }
}
