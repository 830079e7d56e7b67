import ArgumentParser
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache clear`: everything, or only the failed-URL list.
  struct Clear: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    func run() throws {
      let context = try CommandContext(global: global.merged(with: parent.global))
      let cache = context.cache()
      let verb = dryRun ? "would remove" : "removed"
      do {
        if failed {
          let count = try cache.clearFailedURLs(dryRun: dryRun)
          if context.global.json {
            context.console.data(Records.line(["failed_urls": count, "dry_run": dryRun]))
          } else {
            context.console.data("\(verb) \(count) failed URLs")
          }
          return
        }
        let report = try cache.clear(dryRun: dryRun)
        if context.global.json {
          var record = Records.totals(report.removed)
          record["failed_urls"] = report.failedURLs
          record["dry_run"] = dryRun
          context.console.data(Records.line(record))
        } else {
          context.console.data(
            "\(verb) \(report.removed.entries) entries, \(Units.formatBytes(report.removed.bytes)), and \(report.failedURLs) failed URLs"
          )
        }
      } catch let error as CacheError {
        throw ExitCode(context.report(error))
      }
    }
  }
}
