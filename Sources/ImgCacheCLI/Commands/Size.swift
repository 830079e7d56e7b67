import ArgumentParser
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache size`: entries and bytes, in O(1); `--by` breaks them down from the index.
  struct Size: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "size",
      abstract: "Print the number of entries and their size.",
      discussion: """
        Prints 'N entries, X MiB (Y MiB on disk)', and the temporary files of downloads in \
        progress or left by killed processes when there are any; --bytes prints the byte count \
        of the entries alone; --by format, --by host or --by variant (originals, then each variant spec) prints a line per group (count, size, \
        share of the disk size), largest first. Example:
          [ "$(imgcache size --bytes)" -lt 1000000000 ] || imgcache clean --max-size 500M
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: [.customShort("b"), .long], help: "Print the byte count only.")
    var bytes = false
    @Option(name: .long, help: "Break the totals down by format, host or variant.")
    var by: SizeGrouping?

    func run(in context: CommandContext) async throws -> Int32 {
      let totals = try context.cache.totals()
      if let by {
        let groups = try context.cache.breakdown(by: by.breakdown)
        if context.json {
          context.emit(SizeBreakdownRecord(by: by.rawValue, groups, totals: totals))
        } else {
          for group in groups { context.console.data(line(group, of: totals)) }
        }
        return ExitStatus.ok
      }
      let temporary = try context.cache.temporaryUsage()
      if context.json {
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

    private func line(_ group: SizeGroup, of totals: CacheTotals) -> String {
      let share = SizeBreakdownRecord.share(group.totals.allocated, of: totals.allocated)
      let columns = [
        "\(group.totals.entries)", Units.formatBytes(group.totals.bytes),
        Units.formatBytes(group.totals.allocated), Printf.fixed(share * 100, digits: 1) + "%",
      ]
      let widths = [9, 11, 11, 7]
      let padded = zip(columns, widths).map {
        String(repeating: " ", count: max(0, $1 - $0.count)) + $0
      }
      return padded.joined() + "  " + Console.escaped(group.name)
    }
  }
}

/// The groupings of `size --by`.
enum SizeGrouping: String, ExpressibleByArgument, CaseIterable {
  case format, host, variant

  var breakdown: SizeBreakdown {
    switch self {
    case .format: .format
    case .host: .host
    case .variant: .variant
    }
  }
}

/// `size --by … --json`.
struct SizeBreakdownRecord: Codable {
  struct Group: Codable {
    var name: String
    var entries: Int
    var size: Int64
    var diskSize: Int64
    /// This group's share of the disk size, 0–1.
    var share: Double
  }

  var by: String
  var groups: [Group]
  var totals: TotalsRecord

  init(by: String, _ groups: [SizeGroup], totals: CacheTotals) {
    self.by = by
    self.groups = groups.map {
      Group(
        name: $0.name, entries: $0.totals.entries, size: $0.totals.bytes,
        diskSize: $0.totals.allocated, share: Self.share($0.totals.allocated, of: totals.allocated))
    }
    self.totals = TotalsRecord(totals)
  }

  static func share(_ part: Int64, of whole: Int64) -> Double {
    whole > 0 ? Double(part) / Double(whole) : 0
  }
}
