import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache remove URL...|-i FILE`: delete entries.
  struct Remove: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "remove",
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
    @OptionGroup(title: "Variant (only that variant; without: the original and every variant)")
    var variantFlags: VariantFlags

    var policyFlags: [String: String] { keys.policyFlags }

    func run(in context: CommandContext) async throws -> Int32 {
      let filter = context.configuration.keyFilter
      let cache = context.cache
      var status = ExitStatus.ok
      let source = try list.source()
      let variant = try variantFlags.spec(context.configuration)
      while !context.console.stdoutClosed, case .url(let given) = try source.next(wait: true) {
        let url = CacheKey.redacted(given)
        do {
          let key = CacheKey.key(for: given, filter: filter)
          let removed: [RemovedEntry]
          if let variant {
            let one = try cache.remove(key: variant.derivedKey(for: key), dryRun: dryRun)
            removed = one.map { [$0] } ?? []
          } else {
            removed = try cache.removeWithVariants(key: key, dryRun: dryRun)
          }
          for entry in removed {
            if context.json {
              context.emit(RemovedRecord(entry, url: url, dryRun: dryRun))
            } else {
              let which =
                entry.key == key ? "" : " (variant " + entry.key.dropFirst(key.count + 1) + ")"
              context.console.data((dryRun ? "would remove " : "removed ") + url + which)
            }
          }
          if removed.isEmpty && !force {
            context.console.error("not cached: \(url)")
            status = ExitStatus.worst(status, ExitStatus.negative)
          }
        } catch let error as CacheError {
          status = ExitStatus.worst(status, context.report(error))
        }
      }
      return status
    }
  }
}
