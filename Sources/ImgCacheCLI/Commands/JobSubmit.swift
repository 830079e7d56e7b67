import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job submit`: a URL list becomes a job's shards.
struct JobSubmit: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "submit",
    abstract: "Record a job and cut its URL list into shards for workers to take.",
    discussion: """
      Reads the list once, streaming (a shard in memory at a time). The prefetch options \
      given here are the job's: every worker uses them. Credentials (-H, -u, --netrc, cookie \
      jars) are never recorded: give them to 'job work'. A job that exists is refused (exit \
      2) unless --replace. A table's --verify-hash, --caption-col and --save-column travel \
      with its URLs: workers check each digest, the manifest keeps the columns. Example:
        imgcache job submit photos -i urls.txt --shard-size 5000 --rate-per-host 2/s
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions
  @Option(
    name: .shortAndLong, help: "Read URLs from FILE, one a line ('-' for stdin).",
    completion: .file())
  var input: String
  @OptionGroup(title: "Table") var table: TableInputFlags
  @OptionGroup(title: "Table") var columns: TableColumnFlags
  @Option(name: .long, help: "URLs a shard (default 10000).")
  var shardSize = 10_000
  @Flag(name: .long, help: "Delete a job of that name first.")
  var replace = false
  @OptionGroup(title: "Job options") var fetch: JobFetchFlags
  @OptionGroup(title: "Variant") var variantFlags: VariantFlags
  @Flag(name: .long, help: "Drop the original once its variant is stored.")
  var discardOriginal = false

  var policyFlags: [String: String] { fetch.policyFlags }

  func run(in context: CommandContext) async throws -> Int32 {
    var options = FetchOptions()
    try variantFlags.apply(to: &options, discardOriginal: discardOriginal, context.configuration)
    let named = try columns.columns()
    // Columns named make -i a table: of a plain list, the reader says what is wrong.
    let isTable = table.isTable(input) || columns.areNamed
    let recorded = JobOptions(
      policy: fetch.policyFlags, variant: options.variant?.presetText,
      acceptAnyBody: fetch.any, discardOriginal: discardOriginal,
      captionColumn: named.caption, savedColumns: named.saved)
    let queue = try job.queue(context)
    // Refused URLs, a read error or a signal end the submission; the engine then deletes
    // what it added.
    let damage = TableDamage()
    let (result, signal) = await Interrupts.run {
      [input, table, named, isTable, shardSize, replace] in
      Result {
        let lines = URLSequence(
          isTable
            ? TableURLSource(try table.reader(input, columns: named), damage: damage)
            : try URLLines(arguments: [], file: input))
        let added = try queue.submit(
          rows: lines, shardSize: shardSize, options: recorded, replace: replace
        ) {
          if let error = lines.error { throw error }
        }
        return (added.urls, added.shards, lines.duplicates)
      }
    }
    if let signal { return signal }
    context.warn(about: damage, in: input == "-" ? "stdin" : input)
    let (urls, shards, duplicates) = try result.get()
    if context.json {
      context.emit(
        JobSubmitRecord(job: job.name, urls: urls, shards: shards, duplicates: duplicates))
    } else {
      context.console.info(
        "job \(job.name): \(urls) URLs in \(shards) shards of at most \(shardSize)"
          + (duplicates > 0 ? " (\(duplicates) duplicates dropped)" : ""))
    }
    return ExitStatus.ok
  }
}

/// The prefetch options a job records (docs/fleet.md, Submitting): what to fetch and how
/// politely, never credentials.
struct JobFetchFlags: ParsableArguments {
  @Option(name: .shortAndLong, help: "Transfers at once on each worker (default 6).")
  var jobs: String?
  @Option(name: .long, help: "Transfers at once per host (0: no limit of its own).")
  var maxPerHost: String?
  @Option(name: .long, help: "Requests started a second over all hosts, e.g. 10/s.")
  var rate: String?
  @Option(name: .long, help: "Requests started a second to each host, e.g. 2/s.")
  var ratePerHost: String?
  @Option(name: .long, help: "Retries of transient failures.")
  var retry: String?
  @Option(name: .long, help: "Idle timeout: time without a byte, e.g. 15s.")
  var timeout: String?
  @Option(name: .long, help: "Time allowed to connect, e.g. 15s.")
  var connectTimeout: String?
  @Option(name: [.customShort("m"), .long], help: "Time a whole transfer may take, e.g. 2m.")
  var maxTime: String?
  @Option(name: .long, help: "Largest body accepted, e.g. 100M.")
  var maxFilesize: String?
  @Option(name: [.customShort("A"), .long], help: "User-Agent header.")
  var userAgent: String?
  @Option(name: .long, help: "Cache key filter: none or strip-query.")
  var keyFilter: String?
  @Flag(inversion: .prefixedNo, help: "Obey robots.txt and X-Robots-Tag opt-outs.")
  var robots: Bool?
  @Flag(name: .long, help: "Accept any body, not only images.")
  var any = false
  @Option(name: .long, help: "Workers' hold on a shard, renewed every third (default 30s).")
  var jobLease: String?
  @Option(name: .long, help: "Deliveries of a shard before it is dead (default 3).")
  var maxDeliveries: String?

  var policyFlags: [String: String] {
    ImgCacheCLI.policyFlags([
      ("jobs", jobs), ("max_per_host", maxPerHost), ("rate", rate),
      ("rate_per_host", ratePerHost), ("retry", retry), ("timeout", timeout),
      ("connect_timeout", connectTimeout), ("max_time", maxTime), ("max_filesize", maxFilesize),
      ("user_agent", userAgent), ("key_filter", keyFilter), ("job_lease", jobLease),
      ("max_deliveries", maxDeliveries),
      ("robots", robots.map { $0 ? "obey" : "ignore" }),
    ])
  }
}

/// The URLs of a list as a sequence, each with what its table row says; a read error (or a
/// cancel) ends it and is kept.
final class URLSequence: Sequence, IteratorProtocol {
  private let source: any URLSource
  private(set) var error: CacheError?
  /// URLs read so far.
  private var line = 0
  /// The last URLs read, to drop their duplicates (a bounded window, as `prefetch` keeps):
  /// a URL listed twice nearby is one manifest line, not one per shard.
  private var recent = RecentDigests()
  /// Duplicates dropped.
  private(set) var duplicates = 0

  init(_ source: any URLSource) { self.source = source }

  func next() -> ListedURL? {
    while error == nil {
      do {
        let item = try source.next(wait: true)
        // A read ended by a signal looks like the end of the list: it is not.
        if Task.isCancelled {
          error = CacheError(.cancelled, "interrupted")
          return nil
        }
        if item == .end { return nil }
        guard let listed = item.listed else { continue }
        let url = listed.url
        do {
          // The list is kept in Redis as it is: a URL's own credentials would be too.
          guard CacheKey.userinfo(of: url) == nil else {
            line += 1
            error = CacheError(
              .invalidInput,
              "URL \(line) of the list has credentials (\(CacheKey.redacted(url))): a job keeps "
                + "its list in Redis; give them to the workers (-u, --netrc) instead")
            return nil
          }
          line += 1
          guard recent.insert(KeyDigest(key: url)) else {
            duplicates += 1
            continue
          }
          return listed
        }
      } catch let failure as CacheError {
        error = failure
      } catch {
        self.error = CacheError.io("cannot read the URL list", error)
      }
    }
    return nil
  }
}

/// `job submit --json` and `job retry --json`.
struct JobSubmitRecord: Encodable {
  var job: String
  var urls: Int
  var shards: Int
  /// Submit: duplicates dropped (retry: none is written).
  var duplicates: Int?
}
