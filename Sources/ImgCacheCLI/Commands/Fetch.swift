import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache fetch URL...`: get through the cache, print each cached path.
  struct Fetch: CacheCommand {
    static let configuration = CommandConfiguration(
      abstract: "Get images through the cache and print their cached paths.",
      discussion: """
        Prints the absolute path of each cached file, one a line, in argument order; with -o, \
        copies (or links) the file there and prints that path instead. Example:
          img=$(imgcache fetch https://example.com/a.png) && identify "$img"
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "Cache") var fetchFlags: FetchFlags
    @OptionGroup(title: "Transfer") var transfer: TransferFlags
    @ParentCommand var parent: ImgCacheCommand

    @Option(
      name: .shortAndLong, help: "Copy the cached file to FILE (one URL only).", completion: .file()
    )
    var output: String?
    @Flag(name: .long, help: "With -o, hard-link instead of copying.")
    var link = false
    @Option(name: .long, help: "Cache key to use instead of one made from the URL (one URL only).")
    var key: String?
    @Argument(help: "http or https URLs.")
    var urls: [String] = []

    func validate() throws {
      if urls.isEmpty { throw ValidationError("give at least one URL") }
      if (output != nil || key != nil) && urls.count > 1 {
        throw ValidationError("-o and --key take exactly one URL")
      }
      if link && output == nil { throw ValidationError("--link needs -o FILE") }
    }

    var policyFlags: [String: String] {
      transfer.policyFlags.merging(fetchFlags.policyFlags) { $1 }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      var options = try fetchFlags.fetchOptions(context)
      options.explicitKey = key
      let fetcher = context.fetcher(
        readOnly: fetchFlags.roDir, transfer: try transfer.transferOptions(context))
      let (results, signal) = await Interrupts.run { [urls, options] in
        await fetcher.fetch(urls, options: options)
      }
      var status = ExitStatus.ok
      for result in results where !context.console.stdoutClosed {
        var path = result.outcome.successPath
        if let output, let cached = path {
          do {
            try OutputFile.place(cached, at: output, link: link)
            path = URL(fileURLWithPath: output).standardizedFileURL.path
          } catch let error as CacheError {
            status = ExitStatus.worst(status, context.report(error))
            continue
          }
        }
        status = ExitStatus.worst(status, render(result, path: path, context: context))
      }
      return signal ?? status
    }

    private func render(_ result: FetchResult, path: String?, context: CommandContext) -> Int32 {
      if context.global.json { context.emit(FetchRecord(result, path: path)) }
      switch result.outcome {
      case .success(.offlineMiss):
        context.console.info("imgcache: not cached: \(result.url)")
        return ExitStatus.negative
      case .success(let outcome):
        if !context.global.json, let path { context.console.data(path) }
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
}
