import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache export`: a URL table through the cache into dataset shards.
  struct Export: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write a URL table's images from the cache as dataset shards (WebDataset).",
      discussion: """
        Reads the table of -i (csv, tsv, jsonl or txt, each optionally .gz) a shard of rows at \
        a time, gets each row's image through the cache (downloading a miss unless --offline; \
        the original, or a variant with --resize or --variant) and writes img2dataset's \
        layout to -o DIR: NNNNN.tar (or a folder NNNNN/ with --output-format files) holding \
        KEY.jpg, KEY.json and KEY.txt (the caption), NNNNN.jsonl (a row per sample, failures \
        included) and NNNNN_stats.json. A shard appears only when whole; a re-run skips whole \
        shards and fetches nothing cached again. Failed samples are recorded, not fatal. -o \
        may be a WebDAV folder (https://user:password@host/path) or an S3 bucket \
        (s3://bucket/prefix|endpoint=…, keys as remote_storage takes them): each shard is made \
        here, then sent, its tar last. Example:
          imgcache export -i laion.parquet.csv.gz --caption-col caption -o shards --resize 256x256
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "Cache") var fetchFlags: FetchFlags
    @OptionGroup(title: "Transfer") var transfer: TransferFlags
    @OptionGroup(title: "Variant") var variantFlags: VariantFlags
    @ParentCommand var parent: ImgCacheCommand

    @Option(
      name: .shortAndLong, help: "The URL table ('-' for stdin).", completion: .file())
    var input: String
    @OptionGroup(title: "Table") var table: TableInputFlags
    @OptionGroup(title: "Table") var columns: TableColumnFlags
    @Option(
      name: .shortAndLong, help: "The folder the shards go to (or an https:// or s3:// one).",
      completion: .directory)
    var output: String
    @Option(name: .long, help: "Shard layout: webdataset (NNNNN.tar) or files (NNNNN/).")
    var outputFormat: String?
    @Option(name: .long, help: "Rows a shard (default 10000).")
    var shardSize: Int = ExportOptions.defaultShardSize
    @Option(
      name: .long,
      help: ArgumentHelp(
        "Write only shards numbered K modulo N (one machine of N; K from 0).", valueName: "K/N"))
    var shard: String?
    @Option(name: .long, help: "One sample per distinct url or sha256 (body).")
    var dedup: String?
    @Option(name: .shortAndLong, help: "Transfers at once (default 6).")
    var jobs: String?
    @Option(name: .long, help: "Transfers at once per host (0: no limit of its own).")
    var maxPerHost: String?

    var policyFlags: [String: String] {
      transfer.policyFlags.merging(fetchFlags.policyFlags) { $1 }.merging(
        ImgCacheCLI.policyFlags([("jobs", jobs), ("max_per_host", maxPerHost)])
      ) { $1 }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      let exporter = try makeExporter(context)
      defer {
        context.warnAboutRemote(exporter.fetcher)
        // Shards made for a store are sent and gone; what a failure left goes with them.
        if exporter.options.store != nil { try? FileTree.remove(exporter.options.directory) }
      }
      let damage = TableDamage()
      let (result, signal) = await Interrupts.run {
        [input, table, columns] () async -> Result<ExportSummary, CacheError> in
        do {
          let reader = try table.reader(input, columns: try columns.columns())
          return .success(
            try await exporter.run(reader) { Self.show($0, damage: damage, context: context) })
        } catch {
          return .failure(CacheError.io("cannot export", error))
        }
      }
      context.warn(about: damage, in: input == "-" ? "stdin" : input)
      // Interrupted while waiting on its input: the signal's status, not the cancel's error.
      if let signal, case .failure(let error) = result, error.kind == .cancelled { return signal }
      let summary = try result.get()
      if !context.json {
        let shown = exporter.options.store?.label ?? output
        context.console.info(Self.describe(summary, into: shown))
      }
      return signal ?? ExitStatus.ok
    }

    /// The exporter of these flags.
    private func makeExporter(_ context: CommandContext) throws -> DatasetExporter {
      var options = ExportOptions(directory: output)
      if ShardStore.names(output) {
        options.store = try ShardStore(output, environment: ProcessEnvironment.current)
        // Each shard is made in the cache's tmp/ (swept once this process is gone), then sent.
        try context.cache.prepare()
        options.directory = context.cache.layout.tmpPath + "/export-\(ProcessTag.current)-shards"
      }
      options.fetch = try fetchFlags.fetchOptions(context)
      try variantFlags.apply(to: &options.fetch, discardOriginal: false, context.configuration)
      options.shardSize = shardSize
      options.part = try shard.map { try Shard(parsing: $0) }
      options.columns = try columns.columns()
      if let outputFormat {
        guard let format = ExportFormat(rawValue: outputFormat) else {
          throw CacheError(
            .invalidInput, "--output-format '\(outputFormat)': expected webdataset or files")
        }
        options.format = format
      }
      if let dedup {
        guard let mode = ExportDedup(rawValue: dedup) else {
          throw CacheError(.invalidInput, "--dedup '\(dedup)': expected url or sha256")
        }
        options.dedup = mode
      }
      let fetcher = try context.fetcher(
        readOnly: fetchFlags.roDir, transfer: try transfer.transferOptions(context),
        remote: options.fetch.useRemote)
      return try DatasetExporter(fetcher: fetcher, options: options)
    }

    /// Shows one event: a shard line (a JSON record with --json), a malformed row counted.
    private static func show(_ event: ExportEvent, damage: TableDamage, context: CommandContext) {
      switch event {
      case .written(let stats):
        if context.json {
          // A closed stdout ends the export quietly, as a signal would, whole shards kept.
          if !context.emit(stats) { withUnsafeCurrentTask { $0?.cancel() } }
        } else {
          context.console.detail(
            "shard \(ShardNaming.name(ofShard: stats.shard)): \(stats.successes) of \(stats.count) "
              + "samples in \(Units.formatDuration(stats.duration))")
        }
      case .wholeAlready(let shard):
        context.console.detail("shard \(ShardNaming.name(ofShard: shard)): whole already, skipped")
      case .malformed(let line, let reason):
        damage.note(line: line, reason: reason)
      }
    }

    /// The closing line.
    static func describe(_ summary: ExportSummary, into directory: String) -> String {
      let failed =
        (summary.statuses[.failedToDownload] ?? 0) + (summary.statuses[.failedToResize] ?? 0)
      var parts = [
        "\(summary.statuses[.success] ?? 0) of \(summary.samples) samples in "
          + "\(summary.written) shards to \(directory)"
      ]
      if failed > 0 { parts.append("\(failed) failed") }
      if let duplicates = summary.statuses[.duplicate], duplicates > 0 {
        parts.append("\(duplicates) duplicates")
      }
      if summary.skipped > 0 { parts.append("\(summary.skipped) shards whole already") }
      if summary.others > 0 { parts.append("\(summary.others) shards left to other machines") }
      if summary.cancelled { parts.append("interrupted: a re-run resumes") }
      return "exported " + parts.joined(separator: "; ")
    }
  }
}
