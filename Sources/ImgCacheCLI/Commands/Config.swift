import ArgumentParser
import FoundationEssentials
import Glibc
import ImgCacheKit

extension ImgCacheCommand {
  /// `imgcache config`: the effective policy and where each value comes from, like `ccache -p`.
  struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "config",
      abstract: "Show or change the policy: every key's value and where it comes from.",
      discussion: """
        Without a subcommand, prints '(origin) key = value' for every key, the origin being \
        default, an IMGCACHE_* variable, 'file:line' or a flag. Examples:
          imgcache config                      # (default) max_age = 7d ...
          imgcache config get max_size         # 0
          imgcache config set max_size 2G      # in $DIR/imgcache.conf
          imgcache config set --user jobs 8    # in $XDG_CONFIG_HOME/imgcache/config
          imgcache config unset max_size
          imgcache config path                 # the directory and the files consulted
        """,
      subcommands: [Show.self, Get.self, Set.self, Unset.self, Path.self],
      defaultSubcommand: Show.self)
  }
}

extension ImgCacheCommand.Config {
  /// `config` / `config show`.
  struct Show: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "show",
      abstract: "Print every key with its value and origin.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand

    func run(in context: CommandContext) async throws -> Int32 {
      let values = context.resolved.keys.map { key in
        let (text, origin) = context.resolved.value(of: key)
        return (key, text, origin)
      }
      if context.json {
        var record = [String: ConfigValueRecord]()
        for (key, text, origin) in values {
          record[key.name] = ConfigValueRecord(key: key.name, value: text, origin: origin)
        }
        context.emit(record)
      } else {
        for (key, text, origin) in values {
          context.console.data("(\(origin)) \(key.name) = \(Console.escaped(text))")
        }
      }
      return ExitStatus.ok
    }
  }

  /// `config get KEY`.
  struct Get: CacheCommand {
    static let configuration = CommandConfiguration(
      commandName: "get",
      abstract: "Print the effective value of one key.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Argument(help: "The policy key, e.g. max_size.")
    var key: String

    func run(in context: CommandContext) async throws -> Int32 {
      let policyKey = try ConfigFile.policyKey(key)
      let (text, origin) = context.resolved.value(of: policyKey)
      if context.json {
        context.emit(ConfigValueRecord(key: policyKey.name, value: text, origin: origin))
      } else {
        context.console.data(text)
      }
      return ExitStatus.ok
    }
  }

  /// `config set KEY VALUE [--user]`.
  struct Set: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "set",
      abstract: "Write one key in the cache's policy file (or the user file with --user).")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Write the user file instead of $DIR/imgcache.conf.")
    var user = false
    @Argument(help: "The policy key, e.g. max_size.")
    var key: String
    @Argument(help: "The value, e.g. 2G.")
    var value: String

    func run() async throws {
      let file = try ConfigTarget.file(user: user, global: global.merged(with: parent.global))
      try ConfigFile.set(key, to: value, in: file)
    }
  }

  /// `config unset KEY [--user]`.
  struct Unset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "unset",
      abstract: "Remove one key from the cache's policy file (or the user file with --user).")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand
    @Flag(name: .long, help: "Edit the user file instead of $DIR/imgcache.conf.")
    var user = false
    @Argument(help: "The policy key, e.g. max_size.")
    var key: String

    func run() async throws {
      let merged = global.merged(with: parent.global)
      let file = try ConfigTarget.file(user: user, global: merged)
      if try !ConfigFile.unset(key, in: file) && merged.verbose && !merged.quiet {
        Console.standard.info("\(key) was not set in \(file)")
      }
    }
  }

  /// `config path`.
  struct Path: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "path",
      abstract: "Print the cache directory, then the policy files consulted, in order.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var parent: ImgCacheCommand

    func run() async throws {
      let merged = global.merged(with: parent.global)
      let environment = ProcessEnvironment.current
      let directory = try CommandContext.directory(merged.dir, environment: environment)
      let files =
        [CommandContext.cacheFile(in: directory)]
        + [CommandContext.userFile(global: merged, environment: environment)].compactMap { $0 }
      let console = Console(quiet: merged.quiet, verbose: merged.verbose, color: merged.color)
      if merged.json {
        let record = ConfigPathRecord(
          directory: directory,
          files: files.map { ConfigPathRecord.File(path: $0, exists: access($0, F_OK) == 0) })
        console.data(Records.line(record))
      } else {
        for line in [directory] + files { console.data(line) }
      }
    }
  }
}

/// The file `config set` and `config unset` edit.
enum ConfigTarget {
  static func file(user: Bool, global: GlobalOptions) throws -> String {
    let environment = ProcessEnvironment.current
    if user {
      guard let file = CommandContext.userFile(global: global, environment: environment) else {
        throw CacheError(.invalidInput, "cannot find the user config file: set HOME or --config")
      }
      return file
    }
    return CommandContext.cacheFile(
      in: try CommandContext.directory(global.dir, environment: environment))
  }
}

/// One key of `config --json` and `config get --json`.
struct ConfigValueRecord: Codable {
  var key: String
  var value: String
  /// `default`, `IMGCACHE_<KEY>`, `file:line` or the flag.
  var origin: String
}

/// `config path --json`.
struct ConfigPathRecord: Codable {
  struct File: Codable {
    var path: String
    var exists: Bool
  }

  var directory: String
  var files: [File]
}
