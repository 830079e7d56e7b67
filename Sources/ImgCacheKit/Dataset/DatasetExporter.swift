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
    if let store = options.store, options.format == .files {
      throw CacheError(
        .invalidInput,
        "--output-format files makes a folder a shard, which cannot go to \(store.label): "
          + "use webdataset")
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
    var current = try plan(reader, number, &summary, &seen, report)
    // The next shard is read and its fetch started before this one is written: downloads
    // go on while a shard's tail finishes and while it is written. A table that fails to
    // read past this shard fails the export once this shard is written.
    var next: ShardWork?
    var failure: (any Error)?
    while let work = current, !Task.isCancelled, failure == nil {
      number += 1
      do {
        next = try plan(reader, number, &summary, &seen, report)
      } catch {
        failure = error
      }
      do {
        guard try await settle(work, &summary, &seen, report) else { break }
      } catch {
        failure = failure ?? error
      }
      (current, next) = (next, nil)
    }
    // No fetch goes on behind the export: each is stopped and waited for.
    for work in [current, next].compactMap({ $0 }) { await work.stop() }
    if let failure { throw failure }
    summary.cancelled = Task.isCancelled
    return summary
  }

  /// Reads shard `number`'s rows and decides what to do with them; nil at the end of the
  /// table. A shard to write has its fetch started.
  private func plan(
    _ reader: TableReader, _ number: Int, _ summary: inout ExportSummary,
    _ seen: inout SeenSamples, _ report: (ExportEvent) -> Void
  ) throws -> ShardWork? {
    let rows = try readShard(reader, summary: &summary, report: report)
    if rows.isEmpty { return nil }
    guard options.owns(number), !isWhole(number, rows: rows.count) else {
      if options.dedup == .url { seen.noteURLs(of: rows) }
      return options.owns(number) ? .whole(number) : .others
    }
    var repeated = Set<Int>()
    var wanted = [String]()
    for (index, row) in rows.enumerated() {
      if options.dedup == .url && !seen.insert(url: row.url) {
        repeated.insert(index)
      } else {
        wanted.append(row.url)
      }
    }
    let fetch = Task(executorPreference: EngineExecutor.shared) { [self, wanted] in
      await fetchAll(wanted.distinct())
    }
    let shard = ShardRows(
      number: number, rows: rows, repeated: repeated, started: Date(), began: .now)
    return .write(shard, fetch)
  }

  /// Whether shard `number` of `rows` rows is whole already: its stats file reads back with
  /// that many rows, beside its samples in this export's format (a table grown since, or
  /// another shard size or format, makes it again).
  private func isWhole(_ number: Int, rows: Int) -> Bool {
    guard let stats = wholeStats(number), stats.count == rows else { return false }
    let name = naming.shardName(number)
    // A store gets the tar last: with it there, the shard is whole.
    if let store = options.store { return (try? store.has(name + ".tar")) ?? false }
    let samples = options.format == .webdataset ? name + ".tar" : name
    return access(FileIO.path(samples, in: options.directory), F_OK) == 0
  }

  /// Does what `work` says, in table order; false when cancelled meanwhile.
  private func settle(
    _ work: ShardWork, _ summary: inout ExportSummary, _ seen: inout SeenSamples,
    _ report: (ExportEvent) -> Void
  ) async throws -> Bool {
    switch work {
    case .others:
      summary.others += 1
    case .whole(let number):
      if options.dedup == .sha256, let table = try metadataTable(number) {
        seen.noteBodies(ofShard: table.path)
        table.done()
      }
      summary.skipped += 1
      report(.wholeAlready(shard: number))
    case .write(let shard, let fetch):
      let fetched = await withTaskCancellationHandler {
        await fetch.value
      } onCancel: {
        fetch.cancel()
      }
      guard let results = fetched else { return false }
      // A body not cached (`no-store`) was kept for the shard: gone once it is written.
      defer { for result in results.values { result.discardUncachedBody() } }
      guard let stats = try write(shard, results, seen: &seen) else { return false }
      try publish(shard.number)
      summary.written += 1
      summary.statuses[.success, default: 0] += stats.successes
      summary.statuses[.failedToDownload, default: 0] += stats.failedToDownload
      summary.statuses[.failedToResize, default: 0] += stats.failedToResize
      summary.statuses[.duplicate, default: 0] += stats.duplicates
      report(.written(stats))
    }
    return true
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

  /// The stats of shard `number` when it is whole already (its stats file reads back, here or
  /// from the store).
  private func wholeStats(_ number: Int) -> ShardStats? {
    let file = naming.shardName(number) + "_stats.json"
    guard let read = try? fetched(file) else { return nil }
    defer { read.done() }
    guard let bytes = try? WholeFile.read(read.path, limit: 1 << 24) else { return nil }
    return try? JSONDecoder().decode(ShardStats.self, from: Data(bytes))
  }

  /// The metadata table of shard `number`.
  func metadataPath(_ number: Int) -> String {
    FileIO.path(naming.shardName(number) + ".jsonl", in: options.directory)
  }

  /// Fetches the images of `urls` through a prefetch; nil when cancelled meanwhile.
  func fetchAll(_ urls: [String]) async -> [String: FetchResult]? {
    let run = Prefetcher(fetcher: fetcher).start(
      URLList(urls), options: options.fetch, keepsUncachedBodies: true)
    var results = [String: FetchResult](minimumCapacity: urls.count)
    await withTaskCancellationHandler {
      for await event in run { results[event.result.url] = event.result }
    } onCancel: {
      run.cancel()
    }
    _ = await run.summary
    guard !Task.isCancelled else {
      for result in results.values { result.discardUncachedBody() }
      return nil
    }
    return results
  }
}

/// A shard's rows, numbered, with those that repeat an earlier row's URL (`--dedup url`).
struct ShardRows: Sendable {
  var number: Int
  var rows: [TableRow]
  var repeated: Set<Int>
  /// When its fetch started, as a date and on the monotonic clock.
  var started: Date
  var began: ContinuousClock.Instant
}

/// What an export does with a shard, decided as its rows are read and done in table order.
enum ShardWork {
  /// Another machine's (`--shard K/N`).
  case others
  /// Whole already (a re-run).
  case whole(Int)
  /// To write once its images are fetched.
  case write(ShardRows, Task<[String: FetchResult]?, Never>)

  /// Stops its fetch, if any, and waits for it to end.
  func stop() async {
    guard case .write(_, let fetch) = self else { return }
    fetch.cancel()
    for result in await fetch.value?.values ?? [:].values { result.discardUncachedBody() }
  }
}
