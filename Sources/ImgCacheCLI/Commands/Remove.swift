import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache remove URL...|-i FILE`: delete entries.
  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove the entries of URLs from the cache.",
      discussion: """
        Prints each removed URL. Exits 1 if a named URL was not cached, unless -f. Example:
          imgcache remove -f https://example.com/old.png
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @OptionGroup var list: URLListOptions
    @Flag(name: .shortAndLong, help: "An absent entry is not an error.")
    var force = false
    @Flag(name: .long, help: "Show what would be removed; change nothing.")
    var dryRun = false
    @OptionGroup var keys: KeyFilterOption

    func run() throws {
      let context = try CommandContext(
        global: global.merged(with: parent.global),
        flags: keys.policyFlags)
      let filter = try context.policy.keyFilter()
      let cache = context.cache()
      var status = ExitStatus.ok
      for url in try list.stream() {
        do {
          let removed = try cache.remove(
            key: CacheKey.key(for: url, filter: filter), dryRun: dryRun)
          if let removed {
            if context.global.json {
              var record = Records.removed(removed)
              record["url"] = url
              record["dry_run"] = dryRun
              context.console.data(Records.line(record))
            } else {
              context.console.data((dryRun ? "would remove " : "removed ") + url)
            }
          } else if !force {
            context.console.error("not cached: \(url)")
            status = ExitStatus.worst(status, ExitStatus.negative)
          }
        } catch let error as CacheError {
          status = ExitStatus.worst(status, context.report(error))
        }
      }
      if status != ExitStatus.ok { throw ExitCode(status) }
    }
  }
}
