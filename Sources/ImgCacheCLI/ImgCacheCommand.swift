import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import ImgCacheKit

/// `imgcache`: SDWebImage's image cache, downloader and prefetcher as a command-line tool.
public struct ImgCacheCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "imgcache",
    abstract: "Fetch images through a persistent disk cache; warm, inspect and trim it.",
    discussion: """
      The cache lives in $XDG_CACHE_HOME/imgcache (or ~/.cache/imgcache), indexed by SQLite, \
      with files named by the MD5 of their URL as SDWebImage names them.

      \(PolicyHelp.text)

      \(ExitStatus.table)
      """,
    version: ImgCacheVersion.current,
    subcommands: [
      Fetch.self, Prefetch.self, Query.self, Remove.self, Clean.self, Size.self, Clear.self,
      List.self, Stats.self, Verify.self, Config.self, Remote.self, Job.self, Export.self,
    ])

  @OptionGroup var global: GlobalOptions

  public init() {}

  /// Runs the command line, with the exit statuses of docs/design.md, Command line (usage errors
  /// are 2, not 64). `--version` answers on the main thread and exits, starting no thread; so
  /// does a line the front parser takes when its work ends there (a `fetch` or `query` hit:
  /// docs/architecture.md, Start-up). Anything else runs in a task while the main thread
  /// serves dispatch's main queue, as an `async` main would.
  public static func runMain() -> Never {
    signal(SIGPIPE, SIG_IGN)
    let arguments = CommandLine.arguments.dropFirst().map { $0 }
    if FrontParser.asksVersion(arguments) {
      print(ImgCacheVersion.current)
      Glibc.exit(ExitStatus.ok)
    }
    ArgumentSecrets.blank()
    let expanded = OptionalValues.expand(arguments)
    let answer: Answer
    if let command = FrontParser.parse(expanded) {
      let inherited = answeringSignals()
      do {
        answer = try command.start()
      } catch {
        answer = .status(status(for: error))
      }
      if case .status(let status) = answer { Glibc.exit(status) }
      // The task's work as before: `Interrupts` takes the signals, with the mask inherited.
      var mask = inherited
      pthread_sigmask(SIG_SETMASK, &mask, nil)
    } else {
      answer = .later { try await parseAndRun(expanded) }
    }
    // On the engine's executor from the start: the command's run prefers it anyway, and a
    // task on the global executor would start a thread only to hop off it.
    Task(executorPreference: EngineExecutor.shared) {
      let status: Int32
      do {
        status = try await answer.finished()
      } catch {
        status = Self.status(for: error)
      }
      // No download thread may be inside libcurl while the process's globals are torn down.
      Downloader.shutdownAll()
      Glibc.exit(status)
    }
    dispatchMain()
  }

  /// SIGINT and SIGTERM end what the main thread answers with their statuses (130, 143), as
  /// `Interrupts` ends a task's work, even when the process was started with them blocked;
  /// returns the signal mask it was started with.
  private static func answeringSignals() -> sigset_t {
    signal(SIGINT) { _ in Glibc._exit(130) }
    signal(SIGTERM) { _ in Glibc._exit(143) }
    var both = sigset_t()
    var inherited = sigset_t()
    sigemptyset(&both)
    sigaddset(&both, SIGINT)
    sigaddset(&both, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &both, &inherited)
    return inherited
  }

  /// Parses `arguments` with the full parser and runs the command; its exit status.
  static func parseAndRun(_ arguments: [String]) async throws -> Int32 {
    let command = try parseAsRoot(arguments)
    if var asyncCommand = command as? any AsyncParsableCommand {
      // A command's synchronous work on the cache (its index, its files) may block: on the
      // engine's executor, never on Swift's cooperative pool.
      try await withTaskExecutorPreference(EngineExecutor.shared) {
        try await asyncCommand.run()
      }
    } else {
      var command = command
      try command.run()
    }
    return ExitStatus.ok
  }

  /// The exit status `error` calls for, its message reported: the one place a thrown error
  /// becomes a message and a status.
  static func status(for error: any Error) -> Int32 {
    switch error {
    case let exit as ExitCode: return exit.rawValue
    case let error as CacheError: return ExitStatus.report(error, to: Console.standard)
    default: break
    }
    let code = exitCode(for: error).rawValue
    let message = fullMessage(for: error)
    if code == 0 {
      print(message)
      return 0
    }
    // One line: the parser's first line, and where help is (not its multi-line usage).
    let lines = message.split(whereSeparator: \.isNewline).map {
      $0.trimmingWhitespace()
    }
    let first = lines.first ?? "invalid arguments"
    let text = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
    let help = lines.first { $0.hasPrefix("See '") }?.split(separator: "'").dropFirst().first
    Console.standard.error(text + (help.map { " (see '\($0)')" } ?? ""))
    return code == 64 || code == 1 ? ExitStatus.usage : code
  }
}

/// The policy keys for `--help` and the man page, from the engine's table.
enum PolicyHelp {
  static var text: String {
    let lines = PolicyKey.all.map { key in
      let name = key.name.padded(to: 16)
      let shown = key.name == "user_agent" ? "imgcache/V" : key.defaultText
      let value = (shown.isEmpty ? "-" : shown).padded(to: 10)
      return "  \(name)\(value) \(key.summary)"
    }
    return """
      POLICY (key, default, meaning). Set as flags, IMGCACHE_<KEY> variables, or 'key = value' \
      lines in $DIR/imgcache.conf or $XDG_CONFIG_HOME/imgcache/config, in that order of \
      precedence. Sizes: 500K, 20M, 1.5G (1024^n), 10KB (1000^n); durations: 90s, 30m, 12h, 7d, 2w.

      """ + lines.joined(separator: "\n") + """

          variant.NAME    -          a variant preset for --variant NAME: '320x320^ webp q=75'
        """
  }
}
