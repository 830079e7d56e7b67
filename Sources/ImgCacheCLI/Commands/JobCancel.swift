import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job cancel`: workers stop taking a job's shards and give theirs back.
struct JobCancel: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "cancel",
    abstract: "Cancel a job: workers take no more shards and give back the ones they hold.",
    discussion: """
      Workers notice at their next lease renewal (a third of job_lease). What is done stays; \
      'job delete' removes the job. Example:
        imgcache job cancel photos
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions

  func run(in context: CommandContext) async throws -> Int32 {
    try job.queue(context).cancel()
    context.console.info("job \(job.name) cancelled")
    return ExitStatus.ok
  }
}
