import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheKit
@testable import ImgCacheTransport

/// Where a downloaded body is handed over: in memory when it fits (its file is written off the
/// download loop's thread, by the pipeline), in a temporary file when it does not.
@Suite("Download bodies: in memory or in a file", .serialized)
struct DownloadBodyTests {
  let servers = TestServers.shared
  let directory = TemporaryDirectory()

  /// The names in the temporary directory.
  var temporaryFiles: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
  }

  func download(_ path: String) async -> Result<DownloadResponse, CacheError> {
    let downloader = Downloader(options: fastTransfer { _ in })
    let request = DownloadRequest(url: servers.fault(path), temporaryDirectory: directory.path)
    return await downloader.download(request)
  }

  /// The SHA-256 of `bytes`, in lowercase hex, through a stream of its own.
  func sha256(_ bytes: Data) -> String {
    let stream = SHA256Stream()
    bytes.withUnsafeBytes { stream.update($0) }
    return stream.finish()
  }

  @Test("a small body comes in memory, whole and hashed, and no file is left in tmp/")
  func smallBodyInMemory() async throws {
    let image = try Data(contentsOf: URL(fileURLWithPath: servers.root + "/base.png"))
    let response = try await download("/image/base.png?bm=\(UUID().uuidString)").get()
    #expect(response.file == nil)
    #expect(response.body == image)
    #expect(response.bytes == Int64(image.count))
    #expect(response.sha256 == sha256(image))
    #expect(temporaryFiles.isEmpty, "tmp/: \(temporaryFiles)")
  }

  @Test("a body over the memory limit streams into a file, hashed whole")
  func largeBodyInFile() async throws {
    let image = try Data(contentsOf: URL(fileURLWithPath: servers.root + "/base.png"))
    let pad = CurlTransfer.memoryLimit + 1000
    let response = try await download("/image/base.png?pad=\(pad)&bm=\(UUID().uuidString)").get()
    let file = try #require(response.file)
    defer { unlink(file) }
    let stored = try Data(contentsOf: URL(fileURLWithPath: file))
    #expect(stored == image + Data(count: pad))
    #expect(response.body == nil)
    #expect(response.sha256 == sha256(stored))
  }

  @Test("a fetch stores a body that came in memory; a body that is no image leaves no file")
  func fetchStoresMemoryBody() async throws {
    let cache = DiskCache(directory: directory.url.appendingPathComponent("cache"))
    let fetcher = Fetcher(cache: cache, transfer: fastTransfer { _ in })
    let stored = await fetcher.fetch(servers.fault("/image/base.png?bm=\(UUID().uuidString)"))
    let path = try #require(stored.outcome.path)
    let image = try Data(contentsOf: URL(fileURLWithPath: servers.root + "/base.png"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == image)
    let text = await fetcher.fetch(servers.fault("/status/200?bm=\(UUID().uuidString)"))
    #expect(text.outcome.path == nil)
    let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.layout.tmpPath)) ?? []
    #expect(left.isEmpty, "tmp/: \(left)")
  }

  @Test("a reused easy handle carries nothing over: neither credentials nor validators")
  func reusedHandleForgets() async throws {
    // One slot, one request after the other: the second transfer runs on the first's handle.
    let downloader = Downloader(options: fastTransfer { $0.maxConcurrent = 1 })
    let id = UUID().uuidString
    var first = DownloadRequest(
      url: servers.fault("/auth?rh=\(id)"), temporaryDirectory: directory.path,
      etag: "\"v1\"", credentials: "user:secret")
    first.sequence = 1
    #expect((try? await downloader.download(first).get())?.status == 200)
    let second = DownloadRequest(
      url: servers.fault("/auth?rh=\(id)-2"), temporaryDirectory: directory.path)
    let refused = await downloader.download(second)
    guard case .failure(let error) = refused else {
      Issue.record("the second request was let in: \(refused)")
      return
    }
    #expect(error.httpStatus == 401, "\(error)")
    let echo = DownloadRequest(
      url: servers.fault("/headers?rh=\(id)"), temporaryDirectory: directory.path)
    let headers = try await downloader.download(echo).get()
    let sent = try #require(
      JSONSerialization.jsonObject(with: headers.body ?? Data()) as? [String: String])
    let names = Set(sent.keys.map { $0.lowercased() })
    #expect(!names.contains("authorization") && !names.contains("if-none-match"), "\(sent)")
  }
}
