import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job delete`: every key of a job.
struct JobDelete: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete a job from Redis: its record, shards, manifest and counts.",
    discussion: """
      Cached images stay (locally and in the remote tier). Exits 1 when there was no such \
      job. Example:
        imgcache job delete photos
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions

  func run(in context: CommandContext) async throws -> Int32 {
    guard try job.queue(context).delete() else {
      context.console.error("no job \(job.name) on this queue")
      return ExitStatus.negative
    }
    context.console.info("job \(job.name) deleted")
    return ExitStatus.ok
  }
}
