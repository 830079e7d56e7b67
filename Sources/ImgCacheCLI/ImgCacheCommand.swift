import ArgumentParser
import Foundation
import ImgCacheKit

/// `imgcache`: SDWebImage's image cache, downloader and prefetcher as a command-line tool.
public struct ImgCacheCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "imgcache",
    abstract: "Fetch images through a persistent disk cache; warm, inspect and trim it.",
    discussion: """
      The cache lives in $XDG_CACHE_HOME/imgcache (or ~/.cache/imgcache), indexed by SQLite, \
      with files named by the MD5 of their URL as SDWebImage names them.

      \(Policy.documentation)

      \(ExitStatus.table)
      """,
    version: ImgCacheVersion.current,
    subcommands: [
      Fetch.self, Prefetch.self, Query.self, Remove.self, Clean.self, Size.self, Clear.self,
    ])

  @OptionGroup var global: GlobalOptions

  public init() {}

  /// Runs the command line, with DESIGN.md §4's exit statuses (usage errors are 2, not 64).
  public static func main() {
    signal(SIGPIPE, SIG_IGN)
    Glibc.exit(run(CommandLine.arguments.dropFirst().map { $0 }))
  }

  /// Parses and runs `arguments`; returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
      return ExitStatus.ok
    } catch let error as UsageError {
      FileHandle.standardError.write(Data("imgcache: \(error.message)\n".utf8))
      return ExitStatus.usage
    } catch let error as CacheError {
      FileHandle.standardError.write(Data("imgcache: \(error.message)\n".utf8))
      return ExitStatus.code(for: error.kind)
    } catch let exit as ExitCode {
      return exit.rawValue
    } catch {
      let code = exitCode(for: error).rawValue
      let message = fullMessage(for: error)
      if code == 0 {
        print(message)
        return 0
      }
      let text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
      FileHandle.standardError.write(Data("imgcache: \(text)\n".utf8))
      return code == 64 || code == 1 ? ExitStatus.usage : code
    }
  }
}
