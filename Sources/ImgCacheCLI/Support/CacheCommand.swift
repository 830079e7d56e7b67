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
    var status: Int32
    do {
      status = try await run(in: context)
      context.cache.close()
    } catch {
      context.cache.close()
      throw error
    }
    if let error = context.console.stdoutError {
      status = ExitStatus.worst(status, ExitStatus.report(error, to: context.console))
    }
    if status != ExitStatus.ok { throw ExitCode(status) }
  }
}

/// Policy flags: each present value under its key's name.
func policyFlags(_ pairs: [(String, String?)]) -> [String: String] {
  var flags = [String: String]()
  for (name, value) in pairs { if let value { flags[name] = value } }
  return flags
}
