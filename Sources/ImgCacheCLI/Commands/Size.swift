import ArgumentParser
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache size`: entries and bytes, in O(1).
  struct Size: CacheCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the number of entries and their size.",
      discussion: """
        Prints 'N entries, X MiB (Y MiB on disk)', and the temporary files of downloads in \
        progress or left by killed processes when there are any; --bytes prints the byte count \
        of the entries alone. Example:
          [ "$(imgcache size --bytes)" -lt 1000000000 ] || imgcache clean --max-size 500M
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: [.customShort("b"), .long], help: "Print the byte count only.")
    var bytes = false

    func run(in context: CommandContext) async throws -> Int32 {
      let totals = try context.cache.totals()
      let temporary = try context.cache.temporaryUsage()
      if context.global.json {
        context.emit(SizeRecord(totals, temporary: temporary))
      } else if bytes {
        context.console.data("\(totals.bytes)")
      } else {
        let entries = "\(totals.entries) \(totals.entries == 1 ? "entry" : "entries")"
        let sizes =
          "\(Units.formatBytes(totals.bytes)) (\(Units.formatBytes(totals.allocated)) on disk)"
        let extra =
          temporary.files > 0
          ? ", and \(Units.formatBytes(temporary.bytes)) in \(temporary.files) temporary files"
          : ""
        context.console.data("\(entries), \(sizes)\(extra)")
      }
      return ExitStatus.ok
    }
  }
}
