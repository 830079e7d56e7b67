import Foundation
import ImgCacheTestSupport

@testable import ImgCachePipeline
@testable import ImgCacheTransport

/// What the suites over ``ScriptedTransport`` share: a small PNG body, URLs of one host, and a
/// pipeline whose cache lives in the suite's temporary directory.
protocol ScriptedSuite {
  var directory: TemporaryDirectory { get }
}

extension ScriptedSuite {
  /// A 4×3 PNG (its header and size: what the body check reads).
  var png: Data { Data(declaredPNG(width: 4, height: 3)) }

  func url(_ name: String) -> String { "https://img.example/\(name).png" }

  /// A pipeline over `transport`, its cache `cache` (else one in `directory`), then `readOnly`.
  func fetcher(
    _ transport: ScriptedTransport, cache: DiskCache? = nil, readOnly: [URL] = [],
    transfer: TransferOptions = TransferOptions()
  ) -> Fetcher {
    Fetcher(
      cache: cache ?? DiskCache(directory: directory.url), readOnly: readOnly, transfer: transfer,
      transport: transport)
  }
}
