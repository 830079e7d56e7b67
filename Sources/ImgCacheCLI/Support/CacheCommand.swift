import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// A subcommand of `imgcache`: it declares its options and renders; this protocol owns the
/// rest — resolving the context (directory, policy, console) and turning the status into the
/// process's exit. Errors it throws reach ``ImgCacheCommand/run(_:)``, the one place that
/// turns an error into a message and an exit status.
protocol CacheCommand: AsyncParsableCommand {
  /// Options given after the subcommand's name.
  var global: GlobalOptions { get }
  /// The root command, for options given before the subcommand's name.
  var parent: ImgCacheCommand { get }
  /// The policy values this command's flags set, by policy key name.
  var policyFlags: [String: String] { get }
  /// Does the work with a resolved context and returns the exit status.
  func run(in context: CommandContext) async throws -> Int32
}

extension CacheCommand {
  var policyFlags: [String: String] { [:] }

  func run() async throws {
    let context = try CommandContext(global: global.merged(with: parent.global), flags: policyFlags)
    let start = (date: Date(), instant: ContinuousClock.now)
    var status: Int32
    do {
      status = try await run(in: context)
      context.cache.close()
    } catch {
      context.cache.close()
      let cacheError = error as? CacheError
      logStats(context, start: start, status: cacheError.map { ExitStatus.code(for: $0.kind) })
      throw error
    }
    if let error = context.console.stdoutError {
      status = ExitStatus.worst(status, ExitStatus.report(error, to: context.console))
    }
    logStats(context, start: start, status: status)
    if status != ExitStatus.ok { throw ExitCode(status) }
  }

  /// Appends this run's line to the stats log (policy `stats_log`), when there is one: what
  /// it failed to write is a warning, never the command's failure.
  func logStats(
    _ context: CommandContext, start: (date: Date, instant: ContinuousClock.Instant), status: Int32?
  ) {
    guard let path = context.configuration.statsLog else { return }
    let record = StatsLogRecord(
      command: Self.configuration.commandName ?? "imgcache", start: start.date,
      duration: ContinuousClock.now - start.instant, status: status,
      cache: context.cacheDirectory.path, counters: CounterTally.committed())
    do {
      try LineLog.append(Records.line(record), to: path)
    } catch {
      context.console.warning("stats log not written: \(CacheError.describe(error))")
    }
  }
}

/// One line of the stats log: a command's run and the counters it changed, by what.
struct StatsLogRecord: Encodable {
  var command: String
  var start: Date
  var durationSeconds: Double
  /// The exit status, or null for an error that has none of its own (a usage error).
  @Nullable var exitStatus: Int32?
  var cache: String
  /// The counters of `stats --json` this run changed (only those: a remote backend's are not
  /// named here), by what it added.
  var counters: [String: Int64]

  init(
    command: String, start: Date, duration: Duration, status: Int32?, cache: String,
    counters: [String: Int64]
  ) {
    (self.command, self.start, exitStatus, self.cache) = (command, start, status, cache)
    durationSeconds = duration.seconds
    self.counters = counters.filter { Counter(rawValue: $0.key) != nil }
  }
}

/// Policy flags: each present value under its key's name.
func policyFlags(_ pairs: [(String, String?)]) -> [String: String] {
  var flags = [String: String]()
  for (name, value) in pairs { if let value { flags[name] = value } }
  return flags
}
