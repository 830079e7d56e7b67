import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// A subcommand of `imgcache`: it declares its options and renders; this protocol owns the
/// rest — resolving the context (directory, policy, console) and turning the status into the
/// process's exit. Errors it throws reach ``ImgCacheCommand/status(for:)``, the one place
/// that turns an error into a message and an exit status.
protocol CacheCommand: AsyncParsableCommand {
  /// Options given after the subcommand's name.
  var global: GlobalOptions { get }
  /// The root command, for options given before the subcommand's name.
  var parent: ImgCacheCommand { get }
  /// The policy values this command's flags set, by policy key name.
  var policyFlags: [String: String] { get }
  /// Does the work with a resolved context and returns the exit status.
  func run(in context: CommandContext) async throws -> Int32
  /// Starts the work on the calling thread: its status when it ends there (a `fetch` or
  /// `query` hit, with no task and no thread: docs/architecture.md, Start-up), else the rest to
  /// await. By default, all of ``run(in:)`` is the rest.
  func answer(in context: CommandContext) throws -> Answer
}

/// What a command's work came to on the calling thread (``CacheCommand/answer(in:)``).
enum Answer {
  /// It ended with this exit status.
  case status(Int32)
  /// The rest of it, to await in a task; its exit status.
  case later(() async throws -> Int32)

  /// The same work with `last` run when it ends, returned or thrown (at once when it ended).
  func ending(with last: @escaping () -> Void) -> Answer {
    switch self {
    case .status:
      last()
      return self
    case .later(let rest):
      return .later {
        defer { last() }
        return try await rest()
      }
    }
  }

  /// The exit status, once the rest (if any) has run.
  func finished() async throws -> Int32 {
    switch self {
    case .status(let status): return status
    case .later(let rest): return try await rest()
    }
  }
}

extension CacheCommand {
  var policyFlags: [String: String] { [:] }

  func answer(in context: CommandContext) throws -> Answer {
    .later { try await run(in: context) }
  }

  func run() async throws {
    let status = try await start().finished()
    if status != ExitStatus.ok { throw ExitCode(status) }
  }

  /// Resolves the context and starts the work on the calling thread (``answer(in:)``). When
  /// the work ends, here or in the rest, the cache is closed, a failed stdout reported and
  /// the run logged (``CommandRun``); an error is thrown on after the same.
  func start() throws -> Answer {
    let context = try CommandContext(global: global.merged(with: parent.global), flags: policyFlags)
    let run = CommandRun(context: context, command: Self.configuration.commandName ?? "imgcache")
    return try run.started { try answer(in: context) }
  }
}

/// A command's run once its context is resolved, and how it ends. Not generic: one copy in the
/// binary for every command, where the protocol's extension made one per command (14).
struct CommandRun {
  let context: CommandContext
  /// The command's name, for the stats log.
  let command: String
  let start = (date: Date(), instant: ContinuousClock.now)

  /// What `answer` came to, the run ended when it ended (here, or at the end of its rest).
  func started(_ answer: () throws -> Answer) throws -> Answer {
    let answered: Answer
    do {
      answered = try answer()
    } catch {
      throw ended(error)
    }
    switch answered {
    case .status(let status): return .status(ended(status))
    case .later(let rest):
      return .later {
        let status: Int32
        do {
          status = try await rest()
        } catch {
          throw ended(error)
        }
        return ended(status)
      }
    }
  }

  /// Ends a run that returned `status`: the cache closed, a failed stdout reported, the run
  /// logged; the exit status.
  private func ended(_ status: Int32) -> Int32 {
    context.cache.close()
    var status = status
    if let error = context.console.stdoutError {
      status = ExitStatus.worst(status, ExitStatus.report(error, to: context.console))
    }
    logStats(status: status)
    return status
  }

  /// Ends a run that threw `error`: the cache closed, the run logged; the error.
  private func ended(_ error: any Error) -> any Error {
    context.cache.close()
    logStats(status: (error as? CacheError).map { ExitStatus.code(for: $0.kind) })
    return error
  }

  /// Appends this run's line to the stats log (policy `stats_log`), when there is one: what
  /// it failed to write is a warning, never the command's failure.
  private func logStats(status: Int32?) {
    guard let path = context.configuration.statsLog else { return }
    let record = StatsLogRecord(
      command: command, start: start.date, duration: ContinuousClock.now - start.instant,
      status: status, cache: context.cacheDirectory, counters: CounterTally.committed())
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
