import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache clean`: SDWebImage's deleteOldFiles, for cron.
  struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Expire old entries, trim least recently used ones, sweep leftovers.",
      discussion: """
        Expires entries unused for max_age (at or before the cutoff; negative never, 0 all), \
        then, above max_size or max_entries, removes the least recently used until strictly \
        below target x limit, then removes stale temporary files and orphans. Prints what was \
        removed and what remains (nothing with -q). Exits 10 at once if another clean or clear \
        is running. A crontab line:
          17 3 * * *  imgcache clean -q --max-age 30d --max-size 2G
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Option(
      name: .long, help: "Expire entries unused this long, e.g. 7d ('never' or negative: never).")
    var maxAge: String?
    @Option(name: .long, help: "Trim above this size, e.g. 2G (0: no limit).")
    var maxSize: String?
    @Option(name: .long, help: "Trim above this many entries (0: no limit).")
    var maxEntries: String?
    @Option(name: .long, help: "Trim to strictly below target x limit (default 0.5).")
    var target: String?
    @Flag(name: .long, help: "Show what would be removed; change nothing.")
    var dryRun = false

    func run() throws {
      var flags = [PolicyKey: (String, String)]()
      if let maxAge { flags[.maxAge] = (maxAge, "--max-age") }
      if let maxSize { flags[.maxSize] = (maxSize, "--max-size") }
      if let maxEntries { flags[.maxEntries] = (maxEntries, "--max-entries") }
      if let target { flags[.target] = (target, "--target") }
      let context = try CommandContext(global: global.merged(with: parent.global), flags: flags)
      let policy = try context.policy.cleanPolicy()
      let report: CleanReport
      do {
        report = try context.cache().clean(policy: policy, dryRun: dryRun)
      } catch let error as CacheError {
        throw ExitCode(context.report(error))
      }
      render(report, policy: policy, context: context)
    }

    private func render(_ report: CleanReport, policy: CleanPolicy, context: CommandContext) {
      let sum = { (entries: [RemovedEntry]) in entries.reduce(Int64(0)) { $0 + $1.size } }
      if context.global.json {
        let group = { (entries: [RemovedEntry]) -> [String: Any] in
          ["count": entries.count, "bytes": sum(entries), "entries": entries.map(Records.removed)]
        }
        context.console.data(
          Records.line([
            "expired": group(report.expired), "trimmed": group(report.trimmed),
            "orphans": report.orphanFiles.count, "missing": report.missingFiles.count,
            "temporaries": report.staleTemporaries.count,
            "remaining": Records.totals(report.remaining),
            "dry_run": report.dryRun,
            "limits": [
              "max_age_s": policy.maxAge, "max_size": policy.maxSize,
              "max_entries": policy.maxEntries, "target": policy.target,
            ],
          ]))
        return
      }
      // -q: cron runs stay silent; --json (above) still reports.
      if context.console.quiet { return }
      let verb = report.dryRun ? "would remove" : "removed"
      for entry in report.expired {
        context.console.detail("\(verb) (expired): \(entry.url ?? entry.key)")
      }
      for entry in report.trimmed {
        context.console.detail("\(verb) (trimmed): \(entry.url ?? entry.key)")
      }
      let console = context.console
      console.data(
        "expired:  \(report.expired.count) entries, \(Units.formatBytes(sum(report.expired)))  (unused for \(Units.formatDuration(policy.maxAge)))"
      )
      console.data(
        "trimmed:  \(report.trimmed.count) entries, \(Units.formatBytes(sum(report.trimmed)))")
      console.data(
        "swept:    \(report.staleTemporaries.count) temporary files, \(report.orphanFiles.count) orphans, \(report.missingFiles.count) missing"
      )
      console.data(
        "remains:  \(report.remaining.entries) entries, \(Units.formatBytes(report.remaining.bytes)) (\(Units.formatBytes(report.remaining.allocated)) on disk)\(report.dryRun ? "  [dry run]" : "")"
      )
    }
  }
}
