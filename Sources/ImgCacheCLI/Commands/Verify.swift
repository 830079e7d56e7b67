import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache verify`: reconcile the index with the disk.
  struct Verify: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Check the index against the files; --repair fixes what it finds.",
      discussion: """
        Reports rows whose file is missing, files with no row (orphans), sizes that differ \
        from the file, and totals that differ from the sum of the rows; --full also reads \
        every body (still an image, same SHA-256 as stored). Without --repair nothing changes. \
        Exit 0 when clean (or repaired), 1 when problems remain, 10 when \
        a clean or clear holds the cache. Safe while other processes fetch. Example:
          imgcache verify --full || imgcache verify --full --repair
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Also read every body: image check and SHA-256.")
    var full = false
    @Flag(name: .long, help: "Fix what is found: drop rows, delete orphans, update sizes, totals.")
    var repair = false
    @Flag(name: .long, help: "Change nothing (the default without --repair).")
    var dryRun = false

    func validate() throws {
      if repair && dryRun { throw ValidationError("give --repair or --dry-run, not both") }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      let report = try context.cache.verify(full: full, repair: repair)
      if context.json {
        context.emit(VerifyRecord(report))
      } else {
        render(report, console: context.console)
      }
      // A link where a folder belongs is never repaired: it stays a problem.
      let fixed = report.repaired && report.foreign.isEmpty
      return report.problems == 0 || fixed ? ExitStatus.ok : ExitStatus.negative
    }

    private func render(_ report: VerifyReport, console: Console) {
      let classes: [(String, VerifyReport.Problem, String)] = [
        ("rows whose file is missing", report.missing, "rows dropped"),
        ("files with no row (orphans)", report.orphans, "files deleted"),
        ("sizes that differ from the file", report.sizeMismatches, "sizes updated"),
        ("bodies that are not images", report.notImages, "entries removed"),
        ("bodies whose SHA-256 differs", report.hashMismatches, "entries removed"),
      ]
      let checked = report.full ? "metadata and bodies" : "metadata"
      console.data("checked \(report.entries) entries (\(checked))")
      for (label, problem, fix) in classes where problem.count > 0 {
        console.data("\(problem.count) \(label)" + (report.repaired ? ": \(fix)" : ""))
        for example in problem.examples { console.data("  " + Console.escaped(example)) }
        if problem.count > problem.examples.count {
          console.data("  … and \(problem.count - problem.examples.count) more")
        }
      }
      if let (recorded, actual) = report.totals {
        console.data(
          "totals differ from the rows: recorded \(recorded.entries) entries, "
            + "\(recorded.bytes) bytes; rows \(actual.entries) entries, \(actual.bytes) bytes"
            + (report.repaired ? ": recomputed" : ""))
      }
      for link in report.foreign {
        console.data("\(link) is a link or not a folder: left alone (remove it by hand)")
      }
      if report.full && report.unhashed > 0 {
        console.data(
          "\(report.unhashed) entries had no stored SHA-256"
            + (report.repaired ? ": recorded" : " (--repair records it)"))
      }
      if report.problems == 0 {
        console.data("no problems")
      } else if !report.repaired {
        console.data("\(report.problems) problems; run 'imgcache verify --repair' to fix them")
      }
    }
  }
}

/// `verify --json`.
struct VerifyRecord: Codable {
  struct Problem: Codable, Equatable {
    var count: Int
    var examples: [String]

    init(_ problem: VerifyReport.Problem) {
      count = problem.count
      examples = problem.examples
    }
  }

  struct Totals: Codable, Equatable {
    var recorded: TotalsRecord
    var actual: TotalsRecord
  }

  var entries: Int
  var missing: Problem
  var orphans: Problem
  var sizeMismatches: Problem
  var notImages: Problem
  var hashMismatches: Problem
  var unhashed: Int
  @Nullable var totals: Totals?
  var foreign: [String]
  var problems: Int
  var full: Bool
  var repaired: Bool

  init(_ report: VerifyReport) {
    entries = report.entries
    missing = Problem(report.missing)
    orphans = Problem(report.orphans)
    sizeMismatches = Problem(report.sizeMismatches)
    notImages = Problem(report.notImages)
    hashMismatches = Problem(report.hashMismatches)
    unhashed = report.unhashed
    totals = report.totals.map {
      Totals(recorded: TotalsRecord($0.recorded), actual: TotalsRecord($0.actual))
    }
    foreign = report.foreign
    problems = report.problems
    full = report.full
    repaired = report.repaired
  }
}
