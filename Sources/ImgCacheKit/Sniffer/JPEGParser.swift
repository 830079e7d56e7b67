import Glibc

/// JPEG: walks the marker segments to the first start-of-frame.
package enum JPEGParser {
  /// SOF markers that carry the frame size (C4 DHT, C8 JPG and CC DAC are not frames).
  static let frameMarkers: Set<Int> = [
    0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF,
  ]

  /// The most bytes skipped looking for one marker: stray bytes between segments, fill bytes
  /// and stuffed zeros. libjpeg skips any number (warning "extraneous bytes before marker");
  /// a bound keeps a hostile body's walk short.
  static let maxSkipped = 65_536

  static func parse(_ s: some ByteSource) -> ImageInfo? {
    var info: ImageInfo?
    _ = walk(s) { marker, segment, length in
      guard frameMarkers.contains(marker) else { return true }
      if length >= 7, let h = s.be16(segment + 3), let w = s.be16(segment + 5) {
        info = ImageInfo(format: .jpeg, width: w, height: h)
      }
      return false
    }
    return info
  }

  /// How a walk of the header's segments ended.
  enum WalkEnd {
    /// At the first scan (`FF DA`).
    case scan
    /// Where the visitor said to stop.
    case stopped
    /// Before any scan: the end of the image, no marker found, a length under 2, or 4,096
    /// segments.
    case broken
  }

  /// Walks the header's marker segments after the start of image, as libjpeg reads them:
  /// markers without a segment (restarts, TEM) are passed over; `visit` gets each segment's
  /// marker, where it starts (at its length field) and its length (at least 2), and says
  /// whether to go on.
  static func walk(
    _ s: some ByteSource, _ visit: (_ marker: Int, _ segment: Int, _ length: Int) -> Bool
  ) -> WalkEnd {
    var position = 2
    for _ in 0..<4_096 {
      guard let (marker, segment) = nextMarker(s, from: position) else { return .broken }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        position = segment
        continue
      }
      if marker == 0xD9 { return .broken }
      if marker == 0xDA { return .scan }
      guard let length = s.be16(segment), length >= 2 else { return .broken }
      guard visit(marker, segment, length) else { return .stopped }
      position = segment + length
    }
    return .broken
  }

  /// The next marker at or after `position`, found as libjpeg's `next_marker` finds it: stray
  /// bytes skipped, then fill bytes (`FF`), and a stuffed zero (`FF 00`) taken as stray too.
  /// Returns its code and where its segment starts; nil at the end or past ``maxSkipped``.
  static func nextMarker(_ s: some ByteSource, from position: Int) -> (Int, Int)? {
    var at = position
    while at - position <= maxSkipped {
      guard let byte = s.u8(at) else { return nil }
      guard byte == 0xFF else {
        at += 1
        continue
      }
      var markerAt = at + 1
      while s.u8(markerAt) == 0xFF && markerAt - position <= maxSkipped { markerAt += 1 }
      guard markerAt - position <= maxSkipped, let marker = s.u8(markerAt) else { return nil }
      if marker != 0x00 { return (marker, markerAt + 1) }
      at = markerAt + 1
    }
    return nil
  }
}

extension JPEGParser {
  /// How many scans (start-of-scan markers, `FF DA`) the JPEG file at `path` holds, counted
  /// up to `limit + 1` (a count over `limit` is all a caller needs), without decoding: a
  /// progressive JPEG's decoder runs over every block once per scan, so thousands of scans make
  /// a small file cost minutes (libjpeg-turbo's tools bound them: `djpeg -maxscans`). Nil when
  /// the file cannot be read. An `FF DA` inside a segment (an embedded thumbnail's) counts
  /// too: an upper bound.
  package static func scanCount(path: String, limit: Int) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var count = 0
    var previousWasFF = false
    while count <= limit {
      let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if read < 0 && errno == EINTR { continue }
      guard read > 0 else { return read == 0 ? count : nil }
      count += buffer.withUnsafeBytes {
        markers(in: UnsafeRawBufferPointer(rebasing: $0[0..<read]), after: &previousWasFF)
      }
    }
    return count
  }

  /// How many scans the JPEG `bytes` holds, counted as ``scanCount(path:limit:)`` counts them.
  package static func scanCount(bytes: [UInt8]) -> Int {
    var previousWasFF = false
    return bytes.withUnsafeBytes { markers(in: $0, after: &previousWasFF) }
  }

  /// How many `FF DA` pairs `bytes` holds, the first counted when it is `DA` and the block
  /// before ended with `FF` (`previousWasFF`, then set for the next block). Hops from `FF` to
  /// `FF` with `memchr`: in entropy-coded data one byte in hundreds is `FF`.
  static func markers(in bytes: UnsafeRawBufferPointer, after previousWasFF: inout Bool) -> Int {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
    var found = previousWasFF && bytes[0] == 0xDA ? 1 : 0
    var index = 0
    while index < bytes.count, let hit = memchr(base + index, 0xFF, bytes.count - index) {
      let at = base.distance(to: UnsafeRawPointer(hit))
      if at + 1 < bytes.count && bytes[at + 1] == 0xDA { found += 1 }
      index = at + 1
    }
    previousWasFF = bytes[bytes.count - 1] == 0xFF
    return found
  }
}
