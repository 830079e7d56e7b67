import FoundationEssentials
import Glibc

/// One row's image, ready for its shard.
struct PreparedSample {
  var bytes: [UInt8]
  var info: ImageInfo
  var original: (width: Int?, height: Int?)
  var sha256: String
  var modified: Int64
}

extension DatasetExporter {
  /// Writes `shard` from its fetched `results`; its stats, or nil when cancelled (then
  /// nothing of it stays).
  func write(_ shard: ShardRows, _ results: [String: FetchResult], seen: inout SeenSamples)
    throws -> ShardStats?
  {
    let originals = try originalEntries(results.values)
    let output = try ShardOutput(
      directory: options.directory, name: naming.shardName(shard.number), format: options.format)
    var stats = ShardStats(shard: shard.number, start: shard.started.timeIntervalSince1970)
    let encoder = JSONEncoder()
    // Sorted: the same samples make the same bytes, run after run.
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for (index, row) in shard.rows.enumerated() {
      var record = SampleRecord(
        url: CacheKey.redacted(row.url), caption: row.caption,
        captionColumn: options.columns.caption != nil,
        saved: Array(zip(options.columns.saved, row.saved)),
        key: naming.key(shard: shard.number, index: index), status: .duplicate)
      if shard.repeated.contains(index) {
        record.errorMessage = "the same URL as an earlier row"
      } else {
        try add(row, result: results[row.url], originals, to: output, &record, &seen, encoder)
      }
      stats.count(record.status, message: record.errorMessage)
      output.addMetadata(Array(try encoder.encode(record)))
    }
    stats.endTime = Date().timeIntervalSince1970
    stats.duration = (ContinuousClock.now - shard.began).seconds
    if Task.isCancelled { return nil }
    try output.finish(Array(try encoder.encode(stats)))
    return stats
  }

  /// Settles `record` for `row` from its fetch's `result` and writes its files.
  private func add(
    _ row: TableRow, result: FetchResult?, _ originals: [String: CacheEntry],
    to output: ShardOutput, _ record: inout SampleRecord, _ seen: inout SeenSamples,
    _ encoder: JSONEncoder
  ) throws {
    let sample: PreparedSample
    switch prepare(row, result: result, originals) {
    case .failure(let failure):
      record.status =
        failure.kind == .cannotDerive ? .failedToResize : .failedToDownload
      record.errorMessage = failure.detail
      return
    case .success(let prepared): sample = prepared
    }
    if options.dedup == .sha256 && !seen.insert(body: sample.sha256) {
      record.errorMessage = "the same body as an earlier sample"
      return
    }
    record.status = .success
    (record.width, record.height) = (sample.info.width, sample.info.height)
    (record.originalWidth, record.originalHeight) = sample.original
    record.sha256 = sample.sha256
    let ext = VariantSpec.fileExtension(of: sample.info.format)
    try output.add("\(record.key).\(ext)", bytes: sample.bytes, modified: sample.modified)
    if let caption = row.caption, options.columns.caption != nil {
      try output.add("\(record.key).txt", bytes: Array(caption.utf8), modified: sample.modified)
    }
    try output.add(
      "\(record.key).json", bytes: Array(try encoder.encode(record)), modified: sample.modified)
  }

  /// The image of `row` from its fetch's `result`: read back from the cache, its original
  /// checked against the row's digest (each row its own: rows of one URL may give none, or
  /// another); the failure otherwise.
  private func prepare(
    _ row: TableRow, result: FetchResult?, _ originals: [String: CacheEntry]
  ) -> Result<PreparedSample, CacheError> {
    guard let result else { return .failure(CacheError(.cancelled, "not fetched")) }
    let outcome: FetchOutcome
    switch result.outcome {
    case .failure(let error): return .failure(error)
    case .success(let fetched): outcome = fetched
    }
    let body: String
    switch outcome {
    case .offlineMiss: return .failure(CacheError(.invalidInput, "not cached (offline)"))
    case .notStored(let temporary): body = temporary
    default:
      guard let path = outcome.path else { return .failure(CacheError(.localIO, "no body")) }
      body = path
    }
    do {
      let bytes = try WholeFile.read(body, limit: Int(Int32.max))
      guard let info = ImageSniffer.sniff(data: bytes) else {
        return .failure(CacheError(.notAnImage, "the cached body is not an image"))
      }
      let sha256 = SHA256.hex(of: bytes)
      if let expected = row.expectedHash, let algorithm = options.columns.hash?.algorithm {
        let actual =
          if let variant = result.variant {
            fetcher.originalDigest(of: variant, algorithm)
          } else {
            algorithm == .sha256 ? sha256 : MD5.hex(of: bytes)
          }
        let digest = ExpectedDigest(algorithm, hex: expected)
        if let refusal = digest.refusal(actual, ofOriginal: result.variant != nil) {
          return .failure(refusal)
        }
      }
      let original = result.variant.flatMap { originals[$0.originalKey] }
      let entry = outcome.storedEntry
      return .success(
        PreparedSample(
          bytes: bytes, info: info,
          original: result.variant == nil
            ? (info.width, info.height) : (original?.width, original?.height),
          sha256: sha256,
          modified: Int64((entry?.created ?? Date()).timeIntervalSince1970.rounded(.down))))
    } catch {
      return .failure(CacheError.io("cannot read the cached body", error))
    }
  }

  /// The entries of the originals of the variants among `results`, by key.
  private func originalEntries(_ results: some Collection<FetchResult>) throws
    -> [String: CacheEntry]
  {
    let keys = results.compactMap { $0.variant?.originalKey }
    guard !keys.isEmpty else { return [:] }
    var entries = [String: CacheEntry]()
    for entry in try fetcher.cache.storedEntries(forKeys: keys) { entries[entry.key] = entry }
    return entries
  }
}
