import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache clean`: SDWebImage's deleteOldFiles, for cron.
  struct Clean: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "clean",
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
      name: .long, parsing: .unconditional,
      help: "Expire entries unused this long, e.g. 7d ('never' or negative: never).")
    var maxAge: String?
    @Option(name: .long, help: "Trim above this size, e.g. 2G (0: no limit).")
    var maxSize: String?
    @Option(name: .long, help: "Trim above this many entries (0: no limit).")
    var maxEntries: String?
    @Option(name: .long, help: "Trim to strictly below target x limit (default 0.5).")
    var target: String?
    @Flag(name: .long, help: "Show what would be removed; change nothing.")
    var dryRun = false

    var policyFlags: [String: String] {
      ImgCacheCLI.policyFlags([
        ("max_age", maxAge), ("max_size", maxSize), ("max_entries", maxEntries),
        ("target", target),
      ])
    }

    func run(in context: CommandContext) async throws -> Int32 {
      let policy = context.configuration.clean
      let report = try context.cache.clean(policy: policy, dryRun: dryRun)
      render(report, policy: policy, context: context)
      return ExitStatus.ok
    }

    private func render(_ report: CleanReport, policy: CleanPolicy, context: CommandContext) {
      let sum = { (entries: [RemovedEntry]) in entries.reduce(Int64(0)) { $0 + $1.size } }
      for path in report.foreign {
        context.console.warning(
          "\(context.cacheDirectory.path)/\(path) is a symlink, not a folder of the cache: "
            + "left alone")
      }
      if context.json {
        context.emit(CleanRecord(report, policy: policy))
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
