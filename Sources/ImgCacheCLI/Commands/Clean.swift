import ArgumentParser
import FoundationEssentials
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
      let console = context.console
      // Each entry removed is printed (-v) as it goes; the JSON report lists them only with -v.
      let streams = console.verbose && !console.quiet && !context.json
      let verb = dryRun ? "would remove" : "removed"
      let print = { (removal: CleanRemoval) in
        switch removal {
        case .expired(let entry): console.detail("\(verb) (expired): \(entry.url ?? entry.key)")
        case .trimmed(let entry): console.detail("\(verb) (trimmed): \(entry.url ?? entry.key)")
        }
      }
      let report = try context.cache.clean(
        policy: policy, dryRun: dryRun, listing: context.json && console.verbose,
        onRemoved: streams ? print : nil)
      render(report, policy: policy, context: context)
      return ExitStatus.ok
    }

    private func render(_ report: CleanReport, policy: CleanPolicy, context: CommandContext) {
      for path in report.foreign {
        context.console.warning(
          "\(context.cacheDirectory)/\(path) is a symlink, not a folder of the cache: "
            + "left alone")
      }
      if context.json {
        context.emit(CleanRecord(report, policy: policy, listed: context.console.verbose))
        return
      }
      // -q: cron runs stay silent; --json (above) still reports.
      if context.console.quiet { return }
      let console = context.console
      let (expired, trimmed) = (report.expiredTotal, report.trimmedTotal)
      console.data(
        "expired:  \(expired.entries) entries, \(Units.formatBytes(expired.bytes))  (unused for \(Units.formatDuration(policy.maxAge)))"
      )
      console.data(
        "trimmed:  \(trimmed.entries) entries, \(Units.formatBytes(trimmed.bytes))")
      console.data(
        "swept:    \(report.staleTemporaries.count) temporary files, \(report.orphanFiles.count) orphans, \(report.missingFiles.count) missing"
      )
      console.data(
        "remains:  \(report.remaining.entries) entries, \(Units.formatBytes(report.remaining.bytes)) (\(Units.formatBytes(report.remaining.allocated)) on disk)\(report.dryRun ? "  [dry run]" : "")"
      )
    }
  }
}
