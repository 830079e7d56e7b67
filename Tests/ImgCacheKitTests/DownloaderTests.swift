import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCacheKit
@testable import ImgCachePipeline
@testable import ImgCacheStorage

/// Collects results from any thread.
final class Collector<T>: @unchecked Sendable {
  private let lock = NSLock()
  private var items = [T]()
  func add(_ item: T) {
    lock.lock()
    items.append(item)
    lock.unlock()
  }
  var all: [T] {
    lock.lock()
    defer { lock.unlock() }
    return items
  }
}

@Suite("Downloader, manager and prefetcher scenarios", .serialized)
struct DownloaderTests {
  let servers = TestServers.shared
  let directory = TemporaryDirectory()

  func fetcher(_ change: (inout TransferOptions) -> Void = { _ in }) -> Fetcher {
    Fetcher(cache: DiskCache(directory: directory.url), transfer: fastTransfer(change))
  }

  func count(_ path: String) -> Int { servers.stats()?.requests[path] ?? 0 }

  @Test("the concurrency limit is never exceeded, counted by the server")
  func concurrencyLimit() async {
    let fetcher = fetcher { $0.maxConcurrent = 3 }
    let results = await withTaskGroup(of: FetchResult.self) { group in
      for index in 0..<12 {
        group.addTask {
          await fetcher.fetch(servers.fault("/image/base.png?delay=0.3&g=limit&id=\(index)"))
        }
      }
      return await group.reduce(into: [FetchResult]()) { $0.append($1) }
    }
    #expect(results.allSatisfy { $0.outcome.path != nil })
    let stats = servers.stats()
    #expect((stats?.groups["limit"]?["max_active"] ?? 99) <= 3)
    #expect((stats?.groups["limit"]?["max_connections"] ?? 99) <= 3)
    #expect((stats?.groups["limit"]?["max_active"] ?? 0) >= 2)
  }

  @Test(
    "FIFO and LIFO order are observable at the server (DownloaderTests 15)",
    arguments: TransferOptions.Order.allCases)
  func order(order: TransferOptions.Order) async {
    let fetcher = fetcher {
      $0.maxConcurrent = 1
      $0.order = order
    }
    let tag = "order-\(order.rawValue)-\(UUID().uuidString.prefix(6))"
    let (servers, directory) = (self.servers, self.directory.path)
    let request = { @Sendable (index: Int) in
      DownloadRequest(
        url: servers.fault("/image/base.png?delay=0.2&\(tag)=\(index)"),
        temporaryDirectory: directory)
    }
    let downloader = fetcher.downloader
    let first = Task { await downloader.download(request(0)) }
    // The rest are queued once the first is at the server (not after a fixed sleep, which a
    // loaded machine can outrun: the first transfer must hold the only slot).
    for _ in 0..<250 where !(servers.stats()?.order ?? []).contains(where: { $0.contains(tag) }) {
      try? await Task.sleep(for: .milliseconds(20))
    }
    let rest = await downloader.download((1...5).map(request))
    let all = [await first.value] + rest
    for case .success(let response) in all { if let file = response.file { unlink(file) } }
    let seen = (servers.stats()?.order ?? []).filter { $0.contains(tag) }
      .compactMap { Int($0.split(separator: "=").last ?? "") }
    #expect(seen == (order == .fifo ? [0, 1, 2, 3, 4, 5] : [0, 5, 4, 3, 2, 1]))
  }

  @Test(
    "a freed slot starts the next queued transfer at once (regression: the loop slept up to 1 s)")
  func queuedTransfersStartPromptly() async {
    let fetcher = fetcher { $0.maxConcurrent = 1 }
    let started = Date()
    let requests = (0..<20).map { index in
      DownloadRequest(
        url: servers.nginx("base.png?prompt=\(index)"), temporaryDirectory: directory.path)
    }
    let results = await fetcher.downloader.download(requests)
    for case .success(let response) in results { if let file = response.file { unlink(file) } }
    #expect(results.count == 20)
    // Twenty loopback requests take milliseconds; with the bug each waited for the poll timeout.
    // From nginx: the fault server, a Python process shared by the suites running beside this
    // one, answered twenty requests in 20 s under CI's load.
    #expect(Date().timeIntervalSince(started) < 8)
  }

  @Test("transient failures are retried with backoff; permanent ones are not")
  func retries() async {
    let fetcher = fetcher {
      $0.retries = 2
      $0.retryDelay = 0.2
    }
    let started = Date()
    let result = await fetcher.fetch(servers.fault("/status/503?id=retry"))
    #expect(result.outcome.error?.httpStatus == 503)
    #expect(count("/status/503?id=retry") == 3)
    #expect(Date().timeIntervalSince(started) >= 0.6)
    _ = await fetcher.fetch(servers.fault("/status/404?id=retry"))
    #expect(count("/status/404?id=retry") == 1)
  }

  @Test("refresh against nginx's real ETag and Last-Modified gives 304")
  func refreshNginx() async throws {
    let fetcher = fetcher()
    let url = servers.nginx("lossy.webp")
    _ = await fetcher.fetch(url)
    var options = FetchOptions()
    options.mode = .refresh
    guard case .notModified = try await fetcher.fetch(url, options: options).outcome.get() else {
      Issue.record("nginx should answer 304")
      return
    }
  }

  @Test("a request's fingerprint: made once without URL credentials, apart for each with them")
  func fingerprints() throws {
    let fetcher = fetcher()
    let withUser = try RequestURL("http://ann:secret@h.example/a.png")
    let otherUser = try RequestURL("http://bob:secret@h.example/a.png")
    let plain = try RequestURL("http://h.example/a.png")
    let first = fetcher.fingerprint(FetchOptions(), withUser)
    let none = fetcher.fingerprint(FetchOptions(), plain)
    #expect(first != none)
    #expect(fetcher.fingerprint(FetchOptions(), otherUser) != first)
    #expect(fetcher.fingerprint(FetchOptions(), withUser) == first)
    #expect(fetcher.fingerprint(FetchOptions()) == none)
    var anyBody = FetchOptions()
    anyBody.acceptAnyBody = true
    #expect(fetcher.fingerprint(anyBody, plain) != none)
    let again = Fetcher(cache: fetcher.cache, transfer: fetcher.transfer)
    #expect(again.fingerprint(FetchOptions(), plain) == none)
    var otherAgent = fetcher.transfer
    otherAgent.userAgent += " other"
    #expect(Fetcher(cache: fetcher.cache, transfer: otherAgent).fingerprint(FetchOptions()) != none)
  }
}
