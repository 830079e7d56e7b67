import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// `imgcache job manifest`: one JSON line per URL of a job's done shards.
struct JobManifest: CacheCommand {
  static let configuration = CommandConfiguration(
    commandName: "manifest",
    abstract: "Print one JSON line per URL of a job's finished shards: the dataset's index.",
    discussion: """
      Fields (docs/json.md): url, key, status, sha256, size, format, width, height, variant, \
      error {kind, message, http_status}, worker. Shards in order; shards not yet done are \
      left out (see 'job status'). Example:
        imgcache job manifest photos | jq -r 'select(.status == "error") | .url'
      """)

  @OptionGroup var global: GlobalOptions
  @ParentCommand var parent: ImgCacheCommand
  @OptionGroup var job: JobQueueOptions

  func run(in context: CommandContext) async throws -> Int32 {
    let queue = try job.queue(context)
    let shards = try queue.shardCount()
    var malformed = 0
    var index = 0
    while index < shards && !Task.isCancelled {
      defer { index += 1 }
      guard let data = try queue.manifest(shard: index) else { continue }
      var text = ""
      for line in data.split(separator: UInt8(ascii: "\n")) {
        // Lines a worker wrote are JSON: UTF-8 with every control character escaped.
        guard !line.contains(where: { $0 < 0x20 || $0 == 0x7F }),
          let valid = String(validating: line, as: UTF8.self), valid.hasPrefix("{")
        else {
          malformed += 1
          continue
        }
        text += valid + "\n"
      }
      guard context.console.data(text, terminator: "") else { break }
    }
    if malformed > 0 {
      context.console.warning("\(malformed) malformed manifest lines left out")
    }
    return ExitStatus.ok
  }
}
