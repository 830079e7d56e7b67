/// What the lookup stages of one batch decided, counted as they decide it and noted once for
/// the batch when the lookup ends (``Fetcher/lookUp(_:options:)``). The lookups are noted as
/// the local tiers are asked, and the local tier counts its own hits and their bytes with the
/// uses it records (one write holds all three); the remote tier counts its own per backend.
struct LookupTally {
  /// The counts so far.
  var counts = [Counter: Int64]()
  /// Whether the local tiers were asked with a use recorded (then the batch's misses count).
  private var countsMisses = false

  /// Counts a lookup of the local tiers that found `hits`: the read-only directories' hits
  /// with their bytes (`readOnlyBytes`, read by the owner). (The lookups themselves are noted
  /// before the tiers are asked, so the write recording the hits' uses adds them with the hits.)
  mutating func countLookups(hits: some Collection<CacheHit>, readOnlyBytes: Int64) {
    countsMisses = true
    var readOnly: Int64 = 0
    for case .readOnly in hits { readOnly += 1 }
    guard readOnly > 0 else { return }
    counts[.bytesServed, default: 0] += readOnlyBytes
    counts[.hitsReadOnly, default: 0] += readOnly
  }

  /// Counts the misses: the distinct keys no tier had (the local tiers, then the remote tier),
  /// once every tier was asked.
  mutating func countMisses(of fetches: [Fetch]) {
    guard countsMisses else { return }
    var missing = Set<String>()
    for fetch in fetches where fetch.isMissing { missing.insert(fetch.key) }
    if !missing.isEmpty { counts[.misses, default: 0] += Int64(missing.count) }
  }

  /// Counts `count` variants served without deriving them.
  mutating func countVariantHits(_ count: Int) {
    if count > 0 { counts[.variantHits, default: 0] += Int64(count) }
  }
}
