import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache prefetch`: warm the cache from a list of URLs, concurrently.
  struct Prefetch: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "prefetch",
      abstract: "Warm the cache from a list of URLs, concurrently.",
      discussion: """
        Reads URLs from the arguments and from -i FILE ('-' for stdin), one a line; blank lines \
        and # comments are skipped, duplicates fetched once. A FILE ending in .csv, .tsv, \
        .jsonl (each optionally .gz) is a table whose url column (--url-col) is read; a \
        malformed row is reported and skipped. --verify-hash refuses a body whose digest \
        differs from its row's; --caption-col and --save-column put the row's values in \
        each --json record. Shows a progress bar when stderr is \
        a terminal and a summary at the end. Ctrl-C stops cleanly (exit 130, SIGTERM 143); a \
        closed stdout ends it quietly; rerunning resumes. Example:
          imgcache prefetch -j 8 -i urls.txt --save-failed failed.txt
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "Cache") var fetchFlags: FetchFlags
    @OptionGroup(title: "Transfer") var transfer: TransferFlags
    @OptionGroup(title: "Variant") var variantFlags: VariantFlags
    @Flag(name: .long, help: "Drop the original once its variant is stored.")
    var discardOriginal = false
    @ParentCommand var parent: ImgCacheCommand

    @OptionGroup var list: URLListOptions
    @OptionGroup(title: "Table") var table: TableInputFlags
    @OptionGroup(title: "Table") var columns: TableColumnFlags
    @Option(name: .shortAndLong, help: "Transfers at once (default 6).")
    var jobs: String?
    @Option(name: .long, help: "Start order: fifo or lifo.")
    var order: String?
    @Option(name: .long, help: "Transfers at once per host (0: no limit of its own).")
    var maxPerHost: String?
    @Option(
      name: .long, help: "Write failed and unfinished URLs to FILE, for a rerun with -i.",
      completion: .file())
    var saveFailed: String?
    @Option(
      name: .long,
      help: ArgumentHelp(
        "Take only shard K of N of the list (by key hash; K from 0, as JOB_COMPLETION_INDEX).",
        valueName: "K/N"))
    var shard: String?

    var policyFlags: [String: String] {
      transfer.policyFlags.merging(fetchFlags.policyFlags) { $1 }.merging(
        ImgCacheCLI.policyFlags([("jobs", jobs), ("order", order), ("max_per_host", maxPerHost)])
      ) { $1 }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      var options = try fetchFlags.fetchOptions(context)
      try variantFlags.apply(to: &options, discardOriginal: discardOriginal, context.configuration)
      let fetcher = try context.fetcher(
        readOnly: fetchFlags.roDir, transfer: try transfer.transferOptions(context),
        remote: options.useRemote)
      defer { context.warnAboutRemote(fetcher) }
      let prefetcher = Prefetcher(fetcher: fetcher)
      let shard = try self.shard.map { try Shard(parsing: $0) }
      let retryList = try saveFailed.map { try RetryList(path: $0) }
      let damage = TableDamage()
      let named = try columns.columns()
      let source: any URLSource
      if let input = list.input, table.isTable(input) || columns.areNamed {
        let reader = try table.reader(input, columns: named)
        source = ChainedURLs(list.urls, then: TableURLSource(reader, damage: damage))
      } else if columns.areNamed {
        throw CacheError(
          .invalidInput,
          "--caption-col, --save-column and --verify-hash need a table to read (-i FILE)")
      } else {
        source = try list.source()
      }
      let run = prefetcher.start(source, options: options, retryList: retryList, shard: shard)
      let interrupts = Interrupts { run.cancel() }
      var display = PrefetchDisplay(
        console: context.console, json: context.json,
        freshness: context.configuration.freshness, kept: columns.kept(named))
      for await event in run where !display.show(event) {
        run.cancel()  // stdout closed: stop, keep what is done, end quietly.
      }
      let summary = await run.summary
      if let input = list.input { context.warn(about: damage, in: input == "-" ? "stdin" : input) }
      let signal = interrupts.status
      display.finish(summary, interrupted: signal != nil)
      return save(summary, to: retryList, signal: signal, context: context)
    }

    /// Puts `--save-failed` in its place and returns the exit status.
    private func save(
      _ summary: PrefetchSummary, to retryList: RetryList?, signal: Int32?,
      context: CommandContext
    ) -> Int32 {
      var status = summary.failureKinds.reduce(ExitStatus.ok) {
        ExitStatus.worst($0, ExitStatus.code(for: $1))
      }
      if summary.progress.misses > 0 { status = ExitStatus.worst(status, ExitStatus.negative) }
      if let error = summary.inputError {
        status = ExitStatus.worst(status, context.report(error))
      }
      if let signal { status = signal }
      guard let retryList else { return status }
      do {
        try retryList.finish()
      } catch {
        let failure = error as? CacheError ?? CacheError(.localIO, "cannot write \(retryList.path)")
        return ExitStatus.worst(status, context.report(failure))
      }
      return status
    }
  }
}
