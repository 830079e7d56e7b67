import ArgumentParser
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache clear`: everything, or only the failed-URL list.
  struct Clear: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "clear",
      abstract: "Remove every entry and the failed-URL list (--failed: only that list).",
      discussion: """
        Exits 10 if a clean is running. Example:
          imgcache clear --failed   # retry every URL that failed recently
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Clear only the failed-URL list.")
    var failed = false
    @Flag(name: .long, help: "Show what would be removed; change nothing.")
    var dryRun = false

    func run(in context: CommandContext) async throws -> Int32 {
      let cache = context.cache
      let verb = dryRun ? "would remove" : "removed"
      if failed {
        let count = try cache.clearFailedURLs(dryRun: dryRun)
        if context.json {
          context.emit(ClearRecord(removed: nil, failedUrls: count, dryRun: dryRun))
        } else {
          context.console.data("\(verb) \(count) failed URLs")
        }
        return ExitStatus.ok
      }
      let report = try cache.clear(dryRun: dryRun)
      if let aside = report.damagedIndex {
        context.console.warning("the index was damaged: moved aside to \(aside), starting empty")
      }
      if context.json {
        context.emit(
          ClearRecord(
            removed: TotalsRecord(report.removed), failedUrls: report.failedURLs, dryRun: dryRun))
      } else {
        context.console.data(
          "\(verb) \(report.removed.entries) entries, \(Units.formatBytes(report.removed.bytes)), and \(report.failedURLs) failed URLs"
        )
      }
      return ExitStatus.ok
    }
  }
}
