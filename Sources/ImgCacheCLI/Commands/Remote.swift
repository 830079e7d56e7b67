import ArgumentParser
import FoundationEssentials
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache remote status|push`: the shared remote tier.
  struct Remote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remote",
      abstract: "Check the remote tier, or upload local entries to it.",
      discussion: """
        The backends are those of remote_storage (or --remote). Examples:
          imgcache remote status --remote redis://cache.internal:6379
          imgcache remote push --all          # share what this machine already has
          imgcache list --urls --used-within 1d | imgcache remote push -i -
        """,
      subcommands: [Status.self, Push.self])
  }
}

/// `--remote`, for the `remote` subcommands.
struct RemoteOption: ParsableArguments {
  @Option(name: .long, help: "Backend URLs instead of remote_storage's.")
  var remote: String?

  var policyFlags: [String: String] { ImgCacheCLI.policyFlags([("remote_storage", remote)]) }

  /// The tier, or a usage error when no backend is set.
  func tier(_ context: CommandContext) throws -> RemoteTier {
    guard let tier = try context.remoteTier() else {
      throw CacheError(
        .invalidInput, "no remote storage: set remote_storage, IMGCACHE_REMOTE_STORAGE or --remote")
    }
    return tier
  }
}

extension ImgCacheCommand.Remote {
  /// `remote status`.
  struct Status: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Say whether each backend answers, how fast, and what it holds where cheap.",
      discussion: "Exits 0 when every backend answers, 4 when one does not.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @OptionGroup var option: RemoteOption

    var policyFlags: [String: String] { option.policyFlags }

    func run(in context: CommandContext) async throws -> Int32 {
      let statuses = try await option.tier(context).status()
      var status = ExitStatus.ok
      for server in statuses {
        if !server.reachable { status = ExitStatus.code(for: .network) }
        if context.json {
          context.emit(RemoteStatusRecord(server))
          continue
        }
        let name = server.backend + (server.server.isEmpty ? "" : " [\(server.server)]")
        var parts = [
          server.reachable ? "reachable" : "unreachable",
          Printf.fixed(server.latency * 1000, digits: 1) + " ms",
        ]
        if server.readOnly { parts.append("read-only") }
        if let objects = server.objects { parts.append("\(objects) objects") }
        if let bytes = server.bytes { parts.append(Units.formatBytes(bytes)) }
        if let error = server.error { parts.append(error) }
        context.console.data("\(name): " + parts.joined(separator: ", "))
      }
      return status
    }
  }

  /// `remote push`.
  struct Push: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "push",
      abstract: "Upload local entries to every writable backend (ccache's --reshare).",
      discussion: "Exits 0 when every entry was taken, 4 when a backend failed.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @OptionGroup var option: RemoteOption
    @OptionGroup var keys: KeyFilterOption
    @Flag(name: .long, help: "Every entry of the cache.")
    var all = false
    @Option(
      name: .shortAndLong, help: "Read URLs from FILE, one a line ('-' for stdin).",
      completion: .file())
    var input: String?
    @Argument(help: "URLs whose entries to upload.")
    var urls: [String] = []

    var policyFlags: [String: String] { option.policyFlags.merging(keys.policyFlags) { $1 } }

    func validate() throws {
      if all == (!urls.isEmpty || input != nil) {
        throw ValidationError("give --all, or URLs or -i FILE")
      }
    }

    func run(in context: CommandContext) async throws -> Int32 {
      let tier = try option.tier(context)
      guard tier.hasWritableBackend else {
        throw CacheError(.invalidInput, "every remote backend is read-only")
      }
      var status = ExitStatus.ok
      var report = RemotePushReport()
      if all {
        report = try await tier.pushAll()
      } else {
        // Pushed a batch at a time as the lines come, so memory stays flat.
        let filter = context.configuration.keyFilter
        let source = try URLLines(arguments: urls, file: input)
        var more = true
        while more && !Task.isCancelled {
          let items = try source.available(wait: true)
          more = !items.isEmpty && items.last != .end
          let keys = items.compactMap { item -> String? in
            guard case .url(let url) = item else { return nil }
            return CacheKey.key(for: url, filter: filter)
          }
          if !keys.isEmpty { report.add(try await tier.push(keys: keys)) }
        }
      }
      if report.failed > 0 { status = ExitStatus.code(for: .network) }
      if context.json {
        context.emit(RemotePushRecord(report))
      } else {
        context.console.info(
          "pushed \(report.pushed) entries (\(Units.formatBytes(report.bytes))), "
            + "\(report.failed) failed, \(report.skipped) not for sharing")
        for (backend, error) in report.errors.sorted(by: { $0.key < $1.key }) {
          context.console.error("\(backend): \(error)")
        }
      }
      return status
    }

  }
}

/// One server of `remote status --json`.
struct RemoteStatusRecord: Codable {
  var backend: String
  @Nullable var server: String?
  var readOnly: Bool
  var reachable: Bool
  var latencyMs: Double
  @Nullable var objects: Int64?
  @Nullable var bytes: Int64?
  @Nullable var error: String?

  init(_ status: RemoteServerStatus) {
    backend = status.backend
    server = status.server.isEmpty ? nil : status.server
    readOnly = status.readOnly
    reachable = status.reachable
    latencyMs = (status.latency * 10_000).rounded() / 10
    objects = status.objects
    bytes = status.bytes
    error = status.error
  }
}

/// `remote push --json`.
struct RemotePushRecord: Codable {
  var pushed: Int
  var failed: Int
  var skipped: Int
  var bytes: Int64
  var errors: [String: String]

  init(_ report: RemotePushReport) {
    pushed = report.pushed
    failed = report.failed
    skipped = report.skipped
    bytes = report.bytes
    errors = report.errors
  }
}
