import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache fetch URL...`: get through the cache, print each cached path.
  struct Fetch: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "fetch",
      abstract: "Get images through the cache and print their cached paths.",
      discussion: """
        Prints the absolute path of each cached file, one a line, in argument order; with -o, \
        copies (or links) the file there and prints that path instead. With -i FILE or -i -, \
        reads URLs one a line and prints one line per URL in input order as soon as it is \
        known (an empty line for a failure), so one process can serve a whole script. Examples:
          img=$(imgcache fetch https://example.com/a.png) && identify "$img"
          coproc IMG { imgcache fetch -i -; }; echo "$url" >&"${IMG[1]}"; read -r img <&"${IMG[0]}"
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "Cache") var fetchFlags: FetchFlags
    @OptionGroup(title: "Transfer") var transfer: TransferFlags
    @OptionGroup(title: "Variant") var variantFlags: VariantFlags
    @Flag(name: .long, help: "Drop the original once its variant is stored.")
    var discardOriginal = false
    @ParentCommand var parent: ImgCacheCommand

    @Option(
      name: .shortAndLong, help: "Copy the cached file to FILE (one URL only).", completion: .file()
    )
    var output: String?
    @Flag(name: .long, help: "With -o, hard-link instead of copying.")
    var link = false
    @Option(name: .long, help: "Cache key to use instead of one made from the URL (one URL only).")
    var key: String?
    @Option(
      name: .shortAndLong,
      help: "Read URLs from FILE ('-': stdin), one a line; print a line per URL as it is known.",
      completion: .file())
    var input: String?
    @Argument(help: "http or https URLs (taken before those of -i).")
    var urls: [String] = []

    func validate() throws {
      if urls.isEmpty && input == nil { throw ValidationError("give at least one URL") }
      if (output != nil || key != nil) && (urls.count > 1 || input != nil) {
        throw ValidationError("-o and --key take exactly one URL")
      }
      if let key, key.contains(VariantSpec.keySeparator) {
        throw ValidationError(
          "--key '\(key)': '\(VariantSpec.keySeparator)' separates a variant's spec from its "
            + "original's key, so no key given may contain it")
      }
      if link && output == nil { throw ValidationError("--link needs -o FILE") }
    }

    var policyFlags: [String: String] {
      transfer.policyFlags.merging(fetchFlags.policyFlags) { $1 }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      try await answer(in: context).finished()
    }

    /// URLs given as arguments are looked up on the calling thread: when the index answers
    /// them all (hits), they are printed with no task started; otherwise their fetch goes on in
    /// a task, from where the lookup stopped (``Fetcher/begin(_:options:)``).
    func answer(in context: CommandContext) throws -> Answer {
      var options = try fetchFlags.fetchOptions(context)
      try variantFlags.apply(to: &options, discardOriginal: discardOriginal, context.configuration)
      options.explicitKey = key
      let fetcher = try context.fetcher(
        readOnly: fetchFlags.roDir, transfer: try transfer.transferOptions(context),
        remote: options.useRemote)
      let answer: Answer
      do {
        answer = try self.answer(fetcher, options: options, context)
      } catch {
        context.warnAboutRemote(fetcher)
        throw error
      }
      return answer.ending(with: { context.warnAboutRemote(fetcher) })
    }

    /// ``answer(in:)``'s work once its fetcher is made.
    private func answer(_ fetcher: Fetcher, options: FetchOptions, _ context: CommandContext)
      throws -> Answer
    {
      if let input {
        return .later { try await stream(input, fetcher: fetcher, options: options, context) }
      }
      let start = fetcher.begin(urls, options: options)
      if let results = start.results {
        return .status(try render(results, fetcher: fetcher, context: context))
      }
      return .later {
        let (results, signal) = await Interrupts.run {
          await fetcher.fetch(continuing: start, options: options)
        }
        let status = try render(results, fetcher: fetcher, context: context)
        return signal ?? status
      }
    }

    /// Prints `results` (their paths, or where `-o` placed them); the exit status. A record
    /// shows the uses other processes left in the use journal too.
    private func render(_ results: [FetchResult], fetcher: Fetcher, context: CommandContext)
      throws -> Int32
    {
      var status = ExitStatus.ok
      let results = context.json ? fetcher.foldingJournal(results) : results
      for result in results where !context.console.stdoutClosed {
        var path = result.outcome.successPath
        // A body the origin said not to store is only delivered with -o.
        let uncached = result.outcome.uncachedBody
        defer { result.discardUncachedBody() }
        if let output, let cached = path ?? uncached {
          do {
            try OutputFile.place(cached, at: output, link: link)
            path = URL(fileURLWithPath: output).standardizedFileURL.path
          } catch let error as CacheError {
            status = ExitStatus.worst(status, context.report(error))
            continue
          }
        }
        status = ExitStatus.worst(status, Self.render(result, path: path, context: context))
      }
      return status
    }

    /// `-i`: the lines available are fetched as one batch (one lookup, concurrent downloads)
    /// and answered in input order, a line each, before the next lines are read; a URL sent
    /// alone is answered alone, so a co-process gets its answer at once.
    private func stream(
      _ input: String, fetcher: Fetcher, options: FetchOptions, _ context: CommandContext
    ) async throws -> Int32 {
      let (outcome, signal) = await Interrupts.run { [urls] () async -> Result<Int32, CacheError> in
        var status = ExitStatus.ok
        do {
          let source = try URLLines(arguments: urls, file: input, reportsBlankLines: true)
          while !Task.isCancelled && !context.console.stdoutClosed {
            // Every line gets its answer, a blank or comment line too (an empty line, or an
            // error record with --json): a co-process never waits for one that never comes.
            var lines = try source.available(wait: true)
            let ended = lines.last == .end
            if ended { lines.removeLast() }
            let batch = lines.compactMap { line -> String? in
              if case .url(let url) = line { return url }
              return nil
            }
            let fetched = batch.isEmpty ? [] : await fetcher.fetch(batch, options: options)
            var results = (context.json ? fetcher.foldingJournal(fetched) : fetched).makeIterator()
            for line in lines {
              if case .blank(let number) = line {
                if context.json {
                  context.emit(
                    FetchRecord(.noURL(line: number), freshness: context.configuration.freshness)
                      .flattened)
                } else {
                  context.console.data("")
                }
                continue
              }
              guard let result = results.next() else { break }
              result.discardUncachedBody()
              status = ExitStatus.worst(
                status, Self.render(result, path: result.outcome.successPath, context: context))
              if !context.json && result.outcome.successPath == nil {
                context.console.data("")
              }
            }
            if ended || lines.isEmpty { break }
          }
        } catch let error as CacheError {
          return .failure(error)
        } catch {
          return .failure(CacheError(.localIO, "cannot read the URL list", underlying: error))
        }
        return .success(status)
      }
      if let signal { return signal }
      return try outcome.get()
    }

    private static func render(_ result: FetchResult, path: String?, context: CommandContext)
      -> Int32
    {
      if context.json {
        context.emit(
          FetchRecord(result, path: path, freshness: context.configuration.freshness).flattened)
      }
      switch result.outcome {
      case .success(.offlineMiss):
        context.console.info("imgcache: not cached: \(result.url)")
        return ExitStatus.negative
      case .success(.stale(_, _, let error)):
        context.console.warning("serving a stale copy: \(error.message)")
        if !context.json, let path { context.console.data(path) }
        return ExitStatus.ok
      case .success(.notStored):
        if !context.json, let path { context.console.data(path) }
        context.console.warning(
          "not cached, the server said Cache-Control: no-store: \(result.url)"
            + (path == nil ? " (-o FILE saves the body)" : ""))
        return ExitStatus.ok
      case .success(let outcome):
        if !context.json, let path { context.console.data(path) }
        context.console.detail("\(outcome.name): \(result.url)")
        return ExitStatus.ok
      case .failure(let error):
        return context.report(error)
      }
    }
  }
}

extension Result where Success == FetchOutcome {
  /// The cached path of a success.
  var successPath: String? { (try? get())?.path }
  /// The temporary file of a body downloaded but not cached (`no-store`); the caller deletes it.
  var uncachedBody: String? {
    if case .success(.notStored(let body)) = self { return body }
    return nil
  }
}
