import FoundationEssentials
import Glibc

/// The check every downloaded body passes before it is stored (docs/design.md, Cache semantics:
/// Validation).
enum BodyCheck {
  /// The body checked (an image with pixels, unless any body is accepted) and described for
  /// the store; a body that fails is deleted. A body handed over in memory (no `file`) is
  /// checked there, and only a body that passes gets its file in `temporaryDirectory`.
  static func validated(
    _ response: DownloadResponse, url: String, key: String, options: FetchOptions,
    temporaryDirectory: String
  ) throws -> PendingStore {
    var metadata = EntryMetadata(
      contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
      sha256: response.sha256, freshness: response.freshness)
    let info =
      response.body.map { ImageSniffer.sniff(data: $0) }
      ?? response.file.flatMap { ImageSniffer.sniff(path: $0) }
    if !options.acceptAnyBody {
      let type = response.contentType.map { ", \($0)" } ?? ""
      let problem: String?
      if response.bytes == 0 {
        problem = "empty body\(type)"
      } else if let info {
        problem = info.hasPixels ? nil : "\(info.format.rawValue) image has 0 pixels"
      } else {
        problem = "body is not an image (\(response.bytes) bytes\(type))"
      }
      if let problem {
        if let file = response.file { unlink(file) }
        throw CacheError(.notAnImage, problem, url: url)
      }
    }
    // Off the download loop's thread. No fsync: like ccache and curl, a cache trades
    // durability across power loss for speed; the index commits atomically anyway.
    let file =
      try response.file
      ?? FileIO.writeTemporaryFile(
        response.body ?? Data(), in: temporaryDirectory, prefix: ProcessTag.partPrefix)
    metadata.format = info?.format
    metadata.width = info?.width
    metadata.height = info?.height
    return PendingStore(temporaryPath: file, key: key, url: url, metadata: metadata)
  }
}
