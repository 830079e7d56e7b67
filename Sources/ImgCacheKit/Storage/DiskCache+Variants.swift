import FoundationEssentials

/// Variants in storage (docs/design.md, Variants): entries of their own, linked to their
/// original (``VariantLink``).
extension DiskCache {
  /// Removes the entry of `key` and every variant derived from it (`remove URL`); returns what
  /// was removed (or would be, with `dryRun`), the original first. A variant's key removes
  /// that variant alone.
  public func removeWithVariants(key: String, dryRun: Bool = false) throws -> [RemovedEntry] {
    guard index.exists else { return [] }
    let variants = try index.variantKeys(ofOriginal: key)
    return try ([key] + variants.sorted()).compactMap { try remove(key: $0, dryRun: dryRun) }
  }

  /// The originals the variants `keys` were made from, where still stored with that body.
  package func variantSources(forKeys keys: [String]) -> [String: VariantSource] {
    (try? index.variantSources(forKeys: keys)) ?? [:]
  }

  /// Records the links of variants stored without one (copies from the remote tier).
  package func recordVariantLinks(_ links: [VariantLink]) throws {
    try index.recordVariantLinks(links)
  }
}
