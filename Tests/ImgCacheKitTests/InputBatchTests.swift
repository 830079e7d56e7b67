import Testing

@testable import ImgCacheKit
@testable import ImgCachePipeline

/// URL input taken in batches (``URLSource/available(upTo:wait:wake:)``), the one place for
/// `fetch -i`, a prefetch and `remote push`.
@Suite("URL input in batches")
struct InputBatchTests {
  /// A source that answers from a script; a wait skips a scripted "nothing yet", as a pipe
  /// blocks until its next line.
  final class ScriptedSource: URLSource {
    private var script: [URLSourceItem]

    init(_ script: [URLSourceItem]) { self.script = script }

    func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
      while wait, script.first == .notYet { script.removeFirst() }
      return script.isEmpty ? .end : script.removeFirst()
    }
  }

  @Test("duplicates are dropped within a window of the last distinct URLs, not beyond it")
  func duplicateWindow() {
    var recent = RecentDigests()
    var answers = [recent.insert(KeyDigest(key: "first")), recent.insert(KeyDigest(key: "first"))]
    #expect(answers == [true, false], "a near duplicate")
    var pushed = true
    for index in 1..<RecentDigests.capacity {
      pushed = recent.insert(KeyDigest(key: "u\(index)")) && pushed
    }
    #expect(pushed)
    answers = [recent.insert(KeyDigest(key: "first")), recent.insert(KeyDigest(key: "one more"))]
    #expect(answers == [false, true], "still within the window")
    answers = [recent.insert(KeyDigest(key: "first")), recent.insert(KeyDigest(key: "u2"))]
    #expect(answers == [true, false], "pushed out of the window: looked up again")
  }

  @Test("what is there, up to the limit; the end comes last")
  func available() throws {
    let list = URLList(["a", "b", "c"])
    #expect(try list.available(upTo: 2, wait: true) == [.url("a"), .url("b")])
    #expect(try list.available(wait: true) == [.url("c"), .end])
    let pipe = ScriptedSource([.url("a"), .notYet, .url("b")])
    #expect(try pipe.available(wait: true) == [.url("a")], "only what was there")
    #expect(try pipe.available(wait: false) == [.url("b"), .end])
  }
}
