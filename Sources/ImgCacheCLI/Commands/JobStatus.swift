import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job status`: where a job stands.
struct JobStatusCommand: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show a job's shards done, pending, in progress (by worker) and dead, and its URLs.",
    discussion: """
      Pending: not yet taken, given back, or held by a worker silent for three job_lease. \
      --format openmetrics or prometheus prints it for Prometheus (shards by state, URLs by \
      outcome, failures by class, rate, time left, workers, takeovers; the job's name as the \
      label `job`). Exits 0. Examples:
        imgcache job status photos --json
        imgcache job status photos --format openmetrics
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions
  @Option(help: "Output: text, json, openmetrics or prometheus (text 0.0.4).")
  var format: ReportFormat?

  func validate() throws { _ = try ReportFormat.resolve(format, json: global.json) }

  func run(in context: CommandContext) async throws -> Int32 {
    let queue = try job.queue(context)
    // The job's lease when it has one: workers judge lapses by it.
    let recorded = (try? queue.options())?.policy["job_lease"].flatMap(PolicyValue.duration)
    let seconds = max(recorded ?? context.configuration.fleet.lease, FleetPolicy.shortestLease)
    var status = try queue.status(lease: .milliseconds(Checked.milliseconds(seconds)))
    let now = Date()
    let form = try ReportFormat.resolve(format, json: context.json)
    // The fleet's paused hosts: for the text and the metrics (a scan of Redis's keys).
    if form != .json { status.pausedHosts = (try? queue.pausedHosts()) ?? nil }
    if let exposition = form.exposition {
      let families = JobMetrics.families(status, job: job.name, at: now)
      context.console.data(exposition.text(families), terminator: "")
      return ExitStatus.ok
    }
    let record = JobStatusRecord(job: job.name, status, at: now)
    if form == .json {
      context.emit(record)
      return ExitStatus.ok
    }
    let counts = status.counts
    var lines = [
      "job \(job.name): \(Console.escaped(status.state)), \(status.urls) URLs in \(status.shards) shards",
      "shards: \(status.done) done, \(status.pending) pending, "
        + "\(record.inProgress) in progress, \(status.dead) dead",
      "URLs: \(counts.urls) finished: \(counts.stored) stored (\(counts.downloaded) downloaded, "
        + "\(Units.formatBytes(counts.bytes))), \(counts.failures) failed, "
        + "\(counts.disallowed) disallowed",
    ]
    for (kind, count) in counts.failed.sorted(by: { $0.key < $1.key }) {
      lines.append("  \(Console.escaped(kind)): \(count)")
    }
    if let rate = record.urlsPerSecond {
      let eta = record.etaSeconds.map { ", about \(Units.formatDuration($0)) left" } ?? ""
      lines.append("rate: " + Printf.fixed(rate, digits: 1) + " URLs/s" + eta)
    }
    for (worker, held) in status.inProgress.sorted(by: { $0.key < $1.key }) {
      lines.append("  \(Console.escaped(worker)): \(held) in progress")
    }
    lines.append("workers heard from in the last three leases: \(status.workers.count)")
    if let paused = status.pausedHosts, !paused.isEmpty {
      let longest = JobMetrics.longestPauses(paused).prefix(5).map {
        "\(Console.escaped($0.key)) \(Units.formatDuration($0.value))"
      }
      lines.append(
        "hosts paused by the fleet: \(paused.count) (" + longest.joined(separator: ", ")
          + (paused.count > 5 ? ", …)" : ")"))
    }
    if !record.takeovers.isEmpty {
      lines.append("shards taken over (their worker's lease lapsed), by that worker:")
      for entry in record.takeovers {
        lines.append("  \(Console.escaped(entry.worker)): \(entry.shards)")
      }
    }
    for line in lines { context.console.data(line) }
    return ExitStatus.ok
  }
}

/// `job status --json`.
struct JobStatusRecord: Encodable {
  var job: String
  var state: String
  var urls: Int64
  var shards: Int64
  var shardSize: Int64
  var done: Int64
  var pending: Int64
  var inProgress: Int64
  var inProgressByWorker: [WorkerShards]
  var dead: Int64
  var finished: ShardCounts
  @Nullable var submitted: Date?
  @Nullable var started: Date?
  var workers: [WorkerSeen]
  /// Shards taken over from a worker whose lease lapsed, by that worker.
  var takeovers: [WorkerShards]
  @Nullable var urlsPerSecond: Double?
  @Nullable var etaSeconds: Double?
  var options: JobOptions

  init(job: String, _ status: JobStatus, at now: Date) {
    self.job = job
    (state, urls, shards, shardSize) = (status.state, status.urls, status.shards, status.shardSize)
    (done, pending, dead) = (status.done, status.pending, status.dead)
    // Arrays, not objects: the encoder would write a worker's name in snake case.
    inProgressByWorker = status.inProgress.sorted { $0.key < $1.key }.map {
      WorkerShards(worker: $0.key, shards: $0.value)
    }
    inProgress = status.inProgress.values.reduce(0) { $0 &+ $1 }
    (finished, submitted, started) = (status.counts, status.submitted, status.started)
    workers = status.workers.sorted { $0.key < $1.key }.map {
      WorkerSeen(worker: $0.key, seen: $0.value)
    }
    takeovers = status.takeovers.sorted { $0.key < $1.key }.map {
      WorkerShards(worker: $0.key, shards: $0.value)
    }
    options = status.options
    urlsPerSecond = status.urlsPerSecond(at: now)
    etaSeconds = status.etaSeconds(at: now)
  }
}

/// A worker and the shards it holds.
struct WorkerShards: Encodable {
  var worker: String
  var shards: Int64
}

/// A worker and when it was last heard from.
struct WorkerSeen: Encodable {
  var worker: String
  var seen: Date
}
