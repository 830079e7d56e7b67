import FoundationEssentials
import Glibc

/// Turns a URL table into dataset shards through the cache (docs/design.md, Export): rows
/// are taken a shard at a time; a shard another machine owns (`--shard K/N`) or one already
/// whole (a re-run) is skipped; the others' images are fetched (from the cache, else the
/// network unless offline, as the original or a variant) and written as img2dataset writes
/// them, the shard made whole at once.
public struct DatasetExporter: Sendable {
  /// The pipeline every row's image comes through.
  public let fetcher: Fetcher
  public let options: ExportOptions
  let naming: ShardNaming

  /// An export of `options` through `fetcher`; makes the folder; `.invalidInput` for a bad
  /// shard size, `.localIO` when the folder cannot be made.
  public init(fetcher: Fetcher, options: ExportOptions) throws {
    guard (1...ExportOptions.maxShardSize).contains(options.shardSize) else {
      throw CacheError(
        .invalidInput,
        "--shard-size \(options.shardSize): expected 1 to \(ExportOptions.maxShardSize)")
    }
    (self.fetcher, self.options) = (fetcher, options)
    naming = ShardNaming(shardSize: options.shardSize)
    try CacheLayout.makeDirectory(options.directory, allowLink: true)
  }

  /// Exports every row of `reader`; `report` hears of each shard and malformed row as it
  /// goes (called on the export's task, holding nothing). A cancelled export stops before its
  /// next shard is whole and leaves only whole shards.
  public func run(
    _ reader: sending TableReader, report: @escaping @Sendable (ExportEvent) -> Void
  ) async throws -> ExportSummary {
    try await withTaskExecutorPreference(EngineExecutor.shared) {
      try await export(reader, report: report)
    }
  }

  private func export(_ reader: TableReader, report: @Sendable (ExportEvent) -> Void)
    async throws -> ExportSummary
  {
    ShardOutput.removeLeftovers(in: options.directory)
    var summary = ExportSummary()
    var seen = SeenSamples()
    var number = 0
    while !Task.isCancelled {
      let rows = try readShard(reader, summary: &summary, report: report)
      if rows.isEmpty { return summary }
      defer { number += 1 }
      guard options.owns(number) else {
        if options.dedup == .url { seen.noteURLs(of: rows) }
        summary.others += 1
        continue
      }
      if let stats = wholeStats(number) {
        if options.dedup == .url { seen.noteURLs(of: rows) }
        if options.dedup == .sha256 { seen.noteBodies(ofShard: metadataPath(number)) }
        summary.skipped += 1
        report(.wholeAlready(shard: stats.shard))
        continue
      }
      guard let stats = try await write(rows, shard: number, seen: &seen) else { break }
      summary.written += 1
      summary.statuses[.success, default: 0] += stats.successes
      summary.statuses[.failedToDownload, default: 0] += stats.failedToDownload
      summary.statuses[.failedToResize, default: 0] += stats.failedToResize
      summary.statuses[.duplicate, default: 0] += stats.duplicates
      report(.written(stats))
    }
    summary.cancelled = true
    return summary
  }

  /// The next shard's rows (up to the shard size); malformed rows are counted and reported.
  private func readShard(
    _ reader: TableReader, summary: inout ExportSummary, report: (ExportEvent) -> Void
  ) throws -> [TableRow] {
    var rows = [TableRow]()
    while rows.count < options.shardSize {
      switch try reader.next() {
      case .row(let row): rows.append(row)
      case .malformed(let line, let reason):
        summary.malformed += 1
        report(.malformed(line: line, reason: reason))
      case .end: return rows
      }
    }
    return rows
  }

  /// The stats of shard `number` when it is whole already (its stats file reads back).
  private func wholeStats(_ number: Int) -> ShardStats? {
    let path = FileIO.path(naming.shardName(number) + "_stats.json", in: options.directory)
    guard let bytes = try? WholeFile.read(path, limit: 1 << 24) else { return nil }
    return try? JSONDecoder().decode(ShardStats.self, from: Data(bytes))
  }

  /// The metadata table of shard `number`.
  func metadataPath(_ number: Int) -> String {
    FileIO.path(naming.shardName(number) + ".jsonl", in: options.directory)
  }

  /// Fetches the images of `urls` through a prefetch; nil when cancelled meanwhile.
  func fetchAll(_ urls: [String]) async -> [String: FetchResult]? {
    let run = Prefetcher(fetcher: fetcher).start(URLList(urls), options: options.fetch)
    var results = [String: FetchResult](minimumCapacity: urls.count)
    await withTaskCancellationHandler {
      for await event in run { results[event.result.url] = event.result }
    } onCancel: {
      run.cancel()
    }
    _ = await run.summary
    return Task.isCancelled ? nil : results
  }
}
