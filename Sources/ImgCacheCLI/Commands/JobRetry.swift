import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job retry`: a job's failed URLs, and its dead shards, handed out again.
struct JobRetry: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "retry",
    abstract: "Hand a job's failed URLs (by class), and with --dead its dead shards, out again.",
    discussion: """
      The failed URLs of each done shard become a new shard; their lines leave the manifest \
      until it is done, so the manifest keeps one line per URL, its latest outcome. Without \
      --class: the transient classes (network, rate_limited, http_5xx, local_io, tls, \
      protocol, busy). Workers ask the origin again whatever their failed-URL lists say. \
      Run workers again ('job work') to do them. Example:
        imgcache job retry photos --class rate_limited,http_5xx --dead
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Failure classes to retry, comma-separated (network, http_4xx, http_5xx, …).",
      valueName: "classes"))
  var `class`: String?
  @Flag(name: .long, help: "Also hand the dead shards out again.")
  var dead = false
  @Flag(name: .long, help: "Only the dead shards, no failed URLs.")
  var onlyDead = false

  func run(in context: CommandContext) async throws -> Int32 {
    var classes = JobQueue.transientClasses
    if let text = `class` {
      classes = Set(text.split(separator: ",").map { $0.trimmingWhitespace() })
      let known = JobQueue.failureClasses
      if let unknown = classes.first(where: { !known.contains($0) }) {
        throw CacheError(
          .invalidInput,
          "--class \(Console.escaped(unknown)): expected some of "
            + known.sorted().joined(separator: ", "))
      }
    }
    if onlyDead { classes = [] }
    let (urls, shards) = try job.queue(context).retry(classes: classes, dead: dead || onlyDead)
    if context.json {
      context.emit(JobSubmitRecord(job: job.name, urls: urls, shards: shards))
    } else {
      context.console.info(
        "job \(job.name): \(shards) shards handed out again (\(urls) failed URLs)")
    }
    return ExitStatus.ok
  }
}
