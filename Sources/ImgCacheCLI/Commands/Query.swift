import ArgumentParser
import Foundation
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache query URL...`: is it cached, and where.
  struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the cached path of each URL; exit 0 if all are cached, 1 if any is not.",
      discussion: """
        Does not count as a use (the LRU clock) unless --touch. With --json, one record per URL \
        with the stored metadata. Example:
          imgcache query https://example.com/a.png || echo "not cached yet"
        """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Record the lookup as a use (last access).")
    var touch = false
    @OptionGroup var keys: KeyFilterOption
    @Option(
      name: .long, help: "Extra read-only cache directory (repeatable).", completion: .directory)
    var roDir: [String] = []
    @Argument(help: "URLs to look up.")
    var urls: [String]

    func validate() throws {
      if urls.isEmpty { throw ValidationError("give at least one URL") }
    }

    func run() throws {
      let context = try CommandContext(
        global: global.merged(with: parent.global),
        flags: keys.policyFlags)
      let filter = try context.policy.keyFilter()
      let ttl = try context.policy.failedTTL()
      let cache = context.cache(readOnly: roDir)
      var status = ExitStatus.ok
      for url in urls {
        let key = CacheKey.key(for: url, filter: filter)
        let hit: CacheHit?
        let failure: FailedURL?
        do {
          hit = try cache.lookup(key: key, touch: touch)
          failure = try cache.failure(url: url, ttl: ttl)
        } catch let error as CacheError {
          status = ExitStatus.worst(status, context.report(error))
          continue
        }
        if hit == nil { status = ExitStatus.worst(status, ExitStatus.negative) }
        if context.global.json {
          var record: [String: Any] = [
            "url": url, "key": key, "cached": hit != nil, "path": Records.value(hit?.path),
            "blacklisted": failure != nil,
            "failure": failure.map {
              [
                "reason": $0.reason, "count": $0.count,
                "last_failure": Records.date($0.lastFailure),
              ] as [String: Any]
            } ?? NSNull(),
          ]
          if case .local(let entry, _)? = hit {
            record.merge(Records.entry(entry)) { current, _ in current }
          }
          if case .readOnly? = hit { record["source"] = "read_only" }
          context.console.data(Records.line(record))
        } else if let hit {
          context.console.data(hit.path)
        } else {
          context.console.detail("not cached: \(url)")
        }
      }
      if status != ExitStatus.ok { throw ExitCode(status) }
    }
  }
}
