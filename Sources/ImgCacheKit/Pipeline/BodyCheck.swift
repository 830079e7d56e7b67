import Foundation

/// The check every downloaded body passes before it is stored (docs/design.md, Cache semantics:
/// Validation).
enum BodyCheck {
  /// The body checked (an image with pixels, unless any body is accepted) and described for
  /// the store; a body that fails is deleted.
  static func validated(
    _ file: String, response: DownloadResponse, url: String, key: String, options: FetchOptions
  ) throws -> PendingStore {
    var metadata = EntryMetadata(
      contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
      sha256: response.sha256, freshness: response.freshness)
    let info =
      response.body.map { ImageSniffer.sniff(data: $0) } ?? ImageSniffer.sniff(path: file)
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
        unlink(file)
        throw CacheError(.notAnImage, problem, url: url)
      }
    }
    metadata.format = info?.format
    metadata.width = info?.width
    metadata.height = info?.height
    return PendingStore(temporaryPath: file, key: key, url: url, metadata: metadata)
  }
}
