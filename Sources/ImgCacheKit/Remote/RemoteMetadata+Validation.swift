import FoundationEssentials
import Glibc

/// Why a remote object is not taken for the key asked for. The backend answered: this is
/// about one object, never a failure of the backend (whose errors are ``CacheError``s).
package struct RemoteObjectRefusal: Error, Sendable, Equatable {
  /// `corrupt`: damaged or mismatched (a bad trailer, a size or SHA-256 that differs, another
  /// key's object, unreadable or hostile metadata), counted as `remote_corrupt`; a fresh
  /// download's write-back replaces it. `unsuitable`: authentic, but not for this request (too
  /// large, not an image, stored by an older version without its key): a miss.
  enum Reason: Sendable { case corrupt, unsuitable }

  var reason: Reason
  var detail: String

  package static func corrupt(_ detail: String) -> Self { Self(reason: .corrupt, detail: detail) }
  package static func unsuitable(_ detail: String) -> Self {
    Self(reason: .unsuitable, detail: detail)
  }
}

extension RemoteMetadata {
  /// The one check of every remote object, for every backend (docs/design.md, "Untrusted
  /// input"): whoever can write the store can share images, but never another key's, never
  /// an oversized object, never a header line. The object must name `key`; the body at `path`
  /// must have the size (at most `maxSize`) and SHA-256 its metadata gives; every text that may
  /// become a request header holds no control character; the format, width and height are
  /// measured from the body, not taken from the metadata; a reception time in the future (or
  /// no time) is `now`; one before 1970 is 1970. Throws ``RemoteObjectRefusal``.
  package func validated(
    forKey key: String, body path: String, maxSize: Int64, acceptAnyBody: Bool, now: Date
  ) throws -> EntryMetadata {
    guard let stored = self.key else {
      throw RemoteObjectRefusal.unsuitable("stored without its key (by an older version)")
    }
    guard stored == key else { throw RemoteObjectRefusal.corrupt("stored for another key") }
    guard size <= maxSize else { throw RemoteObjectRefusal.unsuitable("larger than max_filesize") }
    if let sourceSHA256,
      sourceSHA256.utf8.count != 64 || !sourceSHA256.utf8.allSatisfy({ $0.isHexDigit })
    {
      throw RemoteObjectRefusal.corrupt("its original's SHA-256 is not one")
    }
    // Any side an original may have (one of 10,000,000 pixels by 1 is under max_pixels).
    for side in [sourceWidth, sourceHeight].compactMap({ $0 })
    where !(1...10_000_000).contains(side) {
      throw RemoteObjectRefusal.corrupt("its original's size is not one")
    }
    let texts = [etag, lastModified, contentType, cacheControl, expires, date, age]
    guard !texts.contains(where: { $0?.containsControlCharacters == true }) else {
      throw RemoteObjectRefusal.corrupt("a header value holds a control character")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { throw CacheError.posix("cannot read", path: path) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, Int64(info.st_size) == size else {
      throw RemoteObjectRefusal.corrupt("size differs from its metadata")
    }
    guard try SHA256.hex(readingFrom: descriptor) == sha256.lowercased() else {
      throw RemoteObjectRefusal.corrupt("SHA-256 differs from its metadata")
    }
    let image = ImageSniffer.sniff(path: path)
    guard acceptAnyBody || image?.hasPixels == true else {
      // Authentic, but not an image this request takes (stored with "any body", or a format
      // this version cannot read).
      throw RemoteObjectRefusal.unsuitable("not an image")
    }
    // A time in the future would pin the copy fresh for years on every machine.
    var time = now
    if let received, received.isFinite, received < now.timeIntervalSince1970 {
      time = Date(timeIntervalSince1970: max(0, received))
    }
    return EntryMetadata(
      format: image?.format, width: image?.width, height: image?.height,
      contentType: contentType, etag: etag, lastModified: lastModified, sha256: sha256.lowercased(),
      freshness: ResponseFreshness(
        cacheControl: cacheControl, expires: expires, date: date, age: age,
        received: time, status: status.flatMap { (200..<300).contains($0) ? $0 : nil }))
  }
}
