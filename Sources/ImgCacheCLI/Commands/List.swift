import ArgumentParser
import FoundationEssentials
import Glibc
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache list`: the entries of the index, filtered and sorted, streamed.
  struct List: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List cached entries (or failed requests) from the index.",
      discussion: """
        One line per entry: last use, size, format and dimensions, URL. Streams from the \
        index a page at a time (flat memory whatever the size); never scans the directory. \
        Examples:
          imgcache list --sort size --reverse --limit 20          # the largest
          imgcache list --unused-for 30d --url-glob '*/thumbs/*' --urls | imgcache remove -i -
          imgcache list --format gif --paths -0 | xargs -0 ls -l
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @OptionGroup var filters: ListFilters
    @Flag(name: .long, help: "List the failed-request records instead of entries.")
    var failed = false
    @Option(
      name: .long, help: "Order: access (least recently used first), size, created, url, hits.")
    var sort: ListOrder = .access
    @Flag(name: [.customShort("r"), .long], help: "Reverse the order.")
    var reverse = false
    @Option(name: [.customShort("n"), .long], help: "Print at most N entries.")
    var limit: Int?
    @Flag(name: .long, help: "Print only the URLs (input for 'remove -i -').")
    var urls = false
    @Flag(name: .long, help: "Print only the absolute paths of the files.")
    var paths = false
    @Flag(
      name: [.customShort("0"), .customLong("print0")],
      help: "End each item with NUL, not a newline.")
    var print0 = false

    func validate() throws {
      if urls && paths { throw ValidationError("give --urls or --paths, not both") }
      if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
      if failed && paths { throw ValidationError("failed requests have no files: drop --paths") }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      let filter = try filters.filter(now: Date())
      if failed { return try listFailures(filter, in: context) }
      var remaining = limit ?? Int.max
      var cursor: EntryCursor?
      let order = sort.order
      repeat {
        guard remaining > 0, !context.console.stdoutClosed, !Task.isCancelled else { break }
        let page = try context.cache.entries(
          matching: filter, order: order, reverse: reverse, after: cursor,
          limit: min(remaining, order.pageSize))
        guard !page.entries.isEmpty else { break }
        let text = page.entries.map {
          render($0, variantOf: page.variantOf[$0.key], context: context)
        }
        context.console.data(text.joined(separator: terminator), terminator: terminator)
        remaining -= page.entries.count
        cursor = page.next
      } while cursor != nil
      return ExitStatus.ok
    }

    private var terminator: String { print0 ? "\0" : "\n" }

    private func render(_ entry: CacheEntry, variantOf: String?, context: CommandContext)
      -> String
    {
      let path = context.cache.layout.dataPath(entry.file)
      if context.json {
        return Records.line(
          QueryRecord(
            url: entry.url, key: entry.key, hit: .local(entry, path: path), failure: nil,
            freshness: context.configuration.freshness, variantOf: variantOf
          ).flattened)
      }
      if urls { return entry.url }
      if paths { return path }
      var format = entry.format ?? "-"
      if let width = entry.width { format += " \(width)x" + (entry.height.map { "\($0)" } ?? "?") }
      return Units.formatTime(entry.lastAccess) + "  "
        + Units.padded(Units.formatBytes(entry.size), 10)
        + "  " + format + String(repeating: " ", count: max(0, 14 - format.count)) + "  "
        + Console.escaped(entry.url)
    }

    private func listFailures(_ filter: EntryFilter, in context: CommandContext) throws -> Int32 {
      var failures = try context.cache.failures()
      if let glob = filter.urlGlob { failures = failures.filter { fnmatch(glob, $0.url, 0) == 0 } }
      let lines = failures.prefix(limit ?? Int.max).map { failure in
        if context.json { return Records.line(FailureRecord(failure)) }
        if urls { return failure.url }
        let status = failure.httpStatus.map { " \($0)" } ?? ""
        return Units.formatTime(failure.lastFailure) + "  " + failure.kind + status + "  "
          + "\(failure.count)x  " + Console.escaped(failure.url) + "  "
          + Console.escaped(failure.reason)
      }
      for line in lines where !context.console.stdoutClosed {
        context.console.data(line, terminator: terminator)
      }
      return ExitStatus.ok
    }
  }
}

/// The orders of `list --sort`.
enum ListOrder: String, ExpressibleByArgument, CaseIterable {
  case access, size, created, url, hits

  var order: EntryOrder {
    switch self {
    case .access: .access
    case .size: .size
    case .created: .created
    case .url: .url
    case .hits: .hits
    }
  }
}
