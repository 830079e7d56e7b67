import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache job submit|work|status|manifest|cancel|delete`: one URL list shared by a fleet.
  struct Job: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "job",
      abstract: "Share one URL list among many machines through Redis (docs/fleet.md).",
      discussion: """
        A job is a URL list cut into shards on Redis Streams: every worker takes a shard, \
        prefetches it through its cache and the remote tier, keeps its manifest, and takes \
        the next; a worker that dies has its shard taken over. The queue is --queue, else \
        the first redis:// backend of remote_storage. Example:
          imgcache job submit laion -i urls.txt --rate-per-host 2/s --resize 256x256^
          imgcache job work laion            # on every machine
          imgcache job status laion
          imgcache job manifest laion > index.jsonl
        """,
      subcommands: [
        JobSubmit.self, JobWork.self, JobStatusCommand.self, JobManifest.self, JobRetry.self,
        JobCancel.self,
        JobDelete.self,
      ])
  }
}

/// `NAME` and `--queue`, for every `job` subcommand.
struct JobQueueOptions: ParsableArguments {
  @Argument(help: "The job's name: 1 to 64 letters, digits, '.', '_' or '-'.")
  var name: String
  @Option(name: .long, help: "The Redis of the job queue (default: remote_storage's first).")
  var queue: String?

  /// The job's queue.
  func queue(_ context: CommandContext) throws -> JobQueue {
    try JobQueue(name: name, queue: queue, remote: context.configuration.remote)
  }
}
