import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache query URL...`: is it cached, and where.
  struct Query: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "query",
      abstract: "Print the cached path of each URL; exit 0 if all are cached, 1 if any is not.",
      discussion: """
        Not a use (the LRU clock, stats) unless --touch. With --json, one record per URL \
        with the stored metadata. Example:
          imgcache query https://example.com/a.png || echo "not cached yet"
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Record the lookup as a use (last access).")
    var touch = false
    @OptionGroup var keys: KeyFilterOption
    @OptionGroup(title: "Variant") var variantFlags: VariantFlags
    @Option(
      name: .long, help: "Extra read-only cache directory (repeatable).", completion: .directory)
    var roDir: [String] = []
    @Argument(help: "URLs to look up.")
    var urls: [String] = []

    func validate() throws {
      if urls.isEmpty { throw ValidationError("give at least one URL") }
    }

    var policyFlags: [String: String] { keys.policyFlags }

    func run(in context: CommandContext) async throws -> Int32 {
      try await answer(in: context).finished()
    }

    /// Answered on the calling thread, with no task, unless a read-only directory is asked
    /// (``Fetcher/begin(_:)-(Fetcher.QueryQuestion)``).
    func answer(in context: CommandContext) throws -> Answer {
      let fetcher = try context.fetcher(readOnly: roDir)
      let variant = try variantFlags.spec(context.configuration)
      let question = Fetcher.QueryQuestion(
        urls: urls, keyFilter: context.configuration.keyFilter,
        failedTTL: context.configuration.failedTTL, touch: touch, variant: variant)
      let start = fetcher.begin(question)
      // A record shows the uses other processes left in the use journal too.
      let shown = { (answers: [QueryAnswer]) in
        context.json ? fetcher.foldingJournal(answers) : answers
      }
      if let answers = start.answers {
        return .status(render(shown(try answers.get()), variant: variant, context: context))
      }
      return .later {
        let answers = try await fetcher.query(continuing: start, question)
        return render(shown(answers), variant: variant, context: context)
      }
    }

    /// Prints `answers`; the exit status (1 when any is not cached).
    private func render(_ answers: [QueryAnswer], variant: VariantSpec?, context: CommandContext)
      -> Int32
    {
      var status = ExitStatus.ok
      for answer in answers where !context.console.stdoutClosed {
        if answer.hit == nil { status = ExitStatus.worst(status, ExitStatus.negative) }
        if context.json {
          context.emit(
            QueryRecord(
              url: answer.url, key: answer.key, hit: answer.hit, failure: answer.failure,
              freshness: context.configuration.freshness,
              variantOf: variant.map { String(answer.key.dropLast($0.canonical.count + 1)) }
            ).flattened)
        } else if let hit = answer.hit {
          context.console.data(hit.path)
        } else {
          context.console.detail("not cached: \(answer.url)")
        }
      }
      return status
    }
  }
}
