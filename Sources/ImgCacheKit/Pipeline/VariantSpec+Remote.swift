import FoundationEssentials

/// A remote object under a variant's key (docs/design.md, Variants): authentic (the check every
/// object passes) is not enough, it must be this variant.
extension VariantSpec {
  /// Throws ``RemoteObjectRefusal`` unless the object whose metadata is `metadata` and whose
  /// body measured `body` is this variant: it names the original it was made from (SHA-256
  /// and size), it is in the format this spec writes, and its size is the one this spec gives
  /// for that original (two pixels or 1 % either way for libvips' rounding; sides swapped for
  /// an original whose orientation turns it).
  func check(remote metadata: RemoteMetadata, body: EntryMetadata) throws {
    guard let source = metadata.source else {
      throw RemoteObjectRefusal.unsuitable(
        "a variant stored without its original's SHA-256 and size (by an older version)")
    }
    guard let format = body.format, let width = body.width, let height = body.height else {
      throw RemoteObjectRefusal.corrupt("a variant whose body is not an image")
    }
    let formats = self.format.imageFormat.map { [$0] } ?? Deriver.writableFormats
    guard formats.contains(format) else {
      throw RemoteObjectRefusal.corrupt(
        "a \(format.rawValue) body, not the format this variant is written in")
    }
    // libvips rounds its own way (and a JPEG's shrink-on-load skews the free side): two
    // pixels, or 1 %, either way.
    let near = { (expected: Int, actual: Int) in
      abs(expected - actual) <= max(2, expected / 100)
    }
    let fits = { (expected: (width: Int, height: Int)) in
      near(expected.width, width) && near(expected.height, height)
    }
    let upright = ThumbnailPlan.outputSize(spec: self, width: source.width, height: source.height)
    let turned = ThumbnailPlan.outputSize(spec: self, width: source.height, height: source.width)
    guard fits(upright) || fits(turned) else {
      throw RemoteObjectRefusal.corrupt(
        "\(width)x\(height), not the size this variant has for a \(source.width)x"
          + "\(source.height) original")
    }
  }
}
