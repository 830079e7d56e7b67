import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job work`: take a job's shards and prefetch them, until none is left.
struct JobWork: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "work",
    abstract: "Take a job's shards one at a time and prefetch them, until none is left.",
    discussion: """
      Uses the job's options; this worker's transfer flags (credentials, headers, -j, …) \
      beat them. Renews its hold on a shard every third of job_lease; a worker silent for \
      three leases has its shard taken over, and a shard delivered max_deliveries times goes \
      to the dead list. Without --follow, ends once every shard is done or dead. SIGINT and \
      SIGTERM give the shard in hand back (exit 130, 143). Example:
        IMGCACHE_REMOTE_STORAGE=redis://cache.internal imgcache job work photos
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions
  @Flag(name: .long, help: "When no shard is left, wait for more instead of ending.")
  var follow = false
  @Option(name: .long, help: "This worker's name (default HOST:PID; unique in the fleet).")
  var worker: String?
  @Option(name: .shortAndLong, help: "Transfers at once (default: the job's).")
  var jobs: String?
  @OptionGroup(title: "Transfer") var transfer: TransferFlags
  @Option(name: .long, help: "Remote tier backends (default remote_storage).")
  var remote: String?
  @Flag(name: .long, help: "Neither ask nor write the remote tier.")
  var noRemote = false

  /// This worker's own policy values (they beat the job's).
  var policyFlags: [String: String] {
    transfer.policyFlags.merging(
      ImgCacheCLI.policyFlags([("jobs", jobs), ("remote_storage", remote)])
    ) { $1 }
  }

  func run(in first: CommandContext) async throws -> Int32 {
    let queue = try job.queue(first)
    let recorded = try queue.options()
    let context = try CommandContext(
      global: first.global, flags: try jobPolicy(recorded).merging(policyFlags) { $1 })
    defer { context.cache.close() }
    let options = try fetchOptions(recorded, context.configuration)
    // A host's rate and pauses hold across the fleet, through the queue's Redis.
    let fleet = try RedisFleetHosts(queue: job.queue, remote: first.configuration.remote)
    var transferOptions = try transfer.transferOptions(context)
    transferOptions.fleet = FleetLink(fleet)
    // One download per key across the fleet: a machine that finds another downloading a key
    // waits for its object in the remote tier.
    let fetcher = try context.fetcher(
      transfer: transferOptions, remote: options.useRemote,
      fleetLocks: try RedisFleetLocks(queue: job.queue, remote: first.configuration.remote))
    defer {
      fleet.close()
      context.warnAboutRemote(fetcher)
      let (failures, last) = fleet.failures
      if failures > 0, let last {
        context.console.warning(
          "the fleet's politeness could not be asked \(failures) times (\(last)); "
            + "this machine's own held meanwhile")
      }
    }
    let name = try workerName()
    let fleetPolicy = context.configuration.fleet
    var worker = JobWorker(
      queue: queue, prefetcher: Prefetcher(fetcher: fetcher), options: options, consumer: name,
      lease: .milliseconds(Checked.milliseconds(max(fleetPolicy.lease, FleetPolicy.shortestLease))),
      maxDeliveries: fleetPolicy.maxDeliveries)
    if recorded.keepsRows { worker.keptColumns = recorded.savedColumns }
    let running = worker
    let (console, json) = (context.console, context.json)
    let (summary, signal) = await Interrupts.run { [follow] in
      await running.run(follow: follow) { event in
        if json {
          context.emit(JobEventRecord(event))
        } else {
          console.info(JobEventRecord(event).text)
        }
      }
    }
    return signal ?? report(summary, worker: name, context)
  }

  /// The job's recorded policy, checked as flags are: a key a job may not set is refused.
  private func jobPolicy(_ recorded: JobOptions) throws -> [String: String] {
    for key in recorded.policy.keys where !FleetPolicy.jobPolicyKeys.contains(key) {
      throw CacheError(
        .invalidInput,
        "job \(job.name): its options set \(Console.escaped(key)), which a job may not")
    }
    return recorded.policy
  }

  /// The options of every fetch: the job's, under this machine's policy.
  private func fetchOptions(_ recorded: JobOptions, _ configuration: Configuration)
    throws -> FetchOptions
  {
    var options = FetchOptions(policy: configuration)
    options.acceptAnyBody = recorded.acceptAnyBody
    options.useRemote = !noRemote
    options.variant = try recorded.variant.map { try VariantSpec.parse(preset: $0) }
    options.derivationLimits = configuration.derivation
    options.discardOriginal = recorded.discardOriginal && options.variant != nil
    return options
  }

  /// The name this worker reads under (`--worker`, else the host's and the process's).
  private func workerName() throws -> String {
    let name = worker ?? JobWorker.defaultName
    guard !name.isEmpty, name.utf8.count <= 200, !name.containsControlCharacters else {
      throw CacheError(.invalidInput, "--worker: expected 1 to 200 printable characters")
    }
    return name
  }

  /// The run's end: its error, a cancelled job, or the worker's counts; the exit status.
  private func report(_ summary: JobWorkSummary, worker name: String, _ context: CommandContext)
    -> Int32
  {
    if let error = summary.error { return context.report(error) }
    if summary.jobCancelled { context.console.info("job \(job.name) was cancelled") }
    if !context.json {
      let counts = summary.counts
      context.console.info(
        "\(name): \(summary.shards) shards, \(counts.urls) URLs: \(counts.stored) stored, "
          + "\(counts.failures) failed, \(counts.disallowed) disallowed")
    }
    return ExitStatus.ok
  }
}

/// One event of `job work`: a line on stderr, or with `--json` a record on stdout (every
/// field in every record, null where it does not apply).
struct JobEventRecord: Encodable {
  var event: String
  @Nullable var shard: Int? = nil
  @Nullable var urls: Int? = nil
  @Nullable var deliveries: Int? = nil
  @Nullable var stored: Int? = nil
  @Nullable var failed: [String: Int]? = nil
  @Nullable var disallowed: Int? = nil
  @Nullable var seconds: Double? = nil
  @Nullable var kept: Bool? = nil
  @Nullable var count: Int? = nil

  init(_ event: JobWorkEvent) {
    switch event {
    case .took(let index, let urls, let deliveries):
      (self.event, shard, self.urls, self.deliveries) = ("took", index, urls, deliveries)
    case .finished(let index, let counts, let kept):
      (self.event, shard, urls, stored) = ("finished", index, counts.urls, counts.stored)
      (failed, disallowed, seconds, self.kept) = (
        counts.failed, counts.disallowed, counts.seconds, kept
      )
    case .gaveBack(let index): (self.event, shard) = ("gave_back", index)
    case .lost(let index): (self.event, shard) = ("lost", index)
    case .buried(let count): (self.event, self.count) = ("buried", count)
    }
  }

  var text: String {
    let number = shard.map(String.init) ?? "?"
    switch event {
    case "took":
      let again = (deliveries ?? 1) > 1 ? " (delivery \(deliveries ?? 1))" : ""
      return "shard \(number): \(urls ?? 0) URLs\(again)"
    case "finished":
      let failures = (failed ?? [:]).values.reduce(0, +)
      let time = Printf.fixed(seconds ?? 0, digits: 1) + " s"
      return "shard \(number) done: \(stored ?? 0) stored, \(failures) failed, "
        + "\(disallowed ?? 0) disallowed in \(time)"
        + (kept == false ? " (another worker finished it first)" : "")
    case "gave_back": return "shard \(number) given back"
    case "lost": return "shard \(number) left to the worker that took it over (this lease lapsed)"
    default: return "\(count ?? 0) shards moved to the dead list (max_deliveries)"
    }
  }
}
