import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache prefetch`: warm the cache from a list of URLs, concurrently.
  struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Warm the cache from a list of URLs, concurrently.",
      discussion: """
        Reads URLs from the arguments and from -i FILE ('-' for stdin), one a line; blank lines \
        and # comments are skipped, duplicates fetched once. Shows a progress bar when stderr is \
        a terminal and a summary at the end. Ctrl-C stops cleanly (exit 130); rerunning resumes. \
        Example:
          imgcache prefetch -j 8 -i urls.txt --save-failed failed.txt
        """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup(title: "Cache") var fetchFlags: FetchFlags
    @OptionGroup(title: "Transfer") var transfer: TransferFlags
    @ParentCommand var parent: ImgCacheCommand

    @OptionGroup var list: URLListOptions
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

    func run() throws {
      var flags = transfer.policyFlags.merging(fetchFlags.policyFlags) { $1 }
      if let jobs { flags[.jobs] = (jobs, "--jobs") }
      if let order { flags[.order] = (order, "--order") }
      if let maxPerHost { flags[.maxPerHost] = (maxPerHost, "--max-per-host") }
      let context = try CommandContext(global: global.merged(with: parent.global), flags: flags)
      let options = try fetchFlags.fetchOptions(context)
      let input = try list.stream()
      let prefetcher = Prefetcher(
        fetcher: Fetcher(
          cache: context.cache(readOnly: fetchFlags.roDir),
          transfer: try transfer.transferOptions(context)))
      let display = PrefetchDisplay(console: context.console, json: context.global.json) {
        prefetcher.cancel()
      }
      let interrupts = Interrupts { prefetcher.cancel() }
      let summary = prefetcher.run(
        input, options: options, onResult: display.result, onProgress: display.progress)
      withExtendedLifetime(interrupts) {}
      display.finish(summary)
      let status = try save(summary, remaining: summary.cancelled ? input : nil, context: context)
      if status != ExitStatus.ok { throw ExitCode(status) }
    }

    /// Writes `--save-failed` and returns the exit status.
    private func save(
      _ summary: PrefetchSummary, remaining: AnyIterator<String>?, context: CommandContext
    ) throws -> Int32 {
      var status = summary.failures.reduce(ExitStatus.ok) {
        ExitStatus.worst($0, ExitStatus.code(for: $1.error.kind))
      }
      if summary.progress.misses > 0 { status = ExitStatus.worst(status, ExitStatus.negative) }
      if summary.cancelled { status = ExitStatus.interrupted }
      guard let saveFailed else { return status }
      var lines = summary.failures.map { "# \($0.error.message)\n\($0.url)" } + summary.unfinished
      if let remaining { while let url = remaining.next() { lines.append(url) } }
      let text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
      let temporary = saveFailed + ".imgcache-\(getpid())"
      guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)),
        rename(temporary, saveFailed) == 0
      else {
        unlink(temporary)
        context.console.error("cannot write \(saveFailed): \(String(cString: strerror(errno)))")
        return ExitStatus.worst(status, 3)
      }
      return status
    }
  }
}

/// SIGINT and SIGTERM cancel the run instead of killing the process.
final class Interrupts {
  private var sources = [DispatchSourceSignal]()

  init(_ handler: @escaping @Sendable () -> Void) {
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.resume()
      sources.append(source)
    }
  }

  deinit {
    for source in sources { source.cancel() }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
