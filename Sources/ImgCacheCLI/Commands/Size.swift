import ArgumentParser
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache size`: entries and bytes, in O(1).
  struct Size: CacheCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the number of entries and their size.",
      discussion: """
        Prints 'N entries, X MiB (Y MiB on disk)'; --bytes prints the byte count alone. Example:
          [ "$(imgcache size --bytes)" -lt 1000000000 ] || imgcache clean --max-size 500M
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: [.customShort("b"), .long], help: "Print the byte count only.")
    var bytes = false

    func run(in context: CommandContext) async throws -> Int32 {
      let totals = try context.cache().totals()
      if context.global.json {
        context.emit(TotalsRecord(totals))
      } else if bytes {
        context.console.data("\(totals.bytes)")
      } else {
        context.console.data(
          "\(totals.entries) \(totals.entries == 1 ? "entry" : "entries"), \(Units.formatBytes(totals.bytes)) (\(Units.formatBytes(totals.allocated)) on disk)"
        )
      }
      return ExitStatus.ok
    }
  }
}
