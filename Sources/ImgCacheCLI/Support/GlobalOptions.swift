import ArgumentParser
import FoundationEssentials

/// Options every command takes, before or after the command name.
struct GlobalOptions: ParsableArguments {
  @Option(
    name: [.customShort("d"), .long], help: "Cache directory (default $XDG_CACHE_HOME/imgcache).",
    completion: .directory)
  var dir: String?

  @Option(
    name: .long, help: "User config file instead of $XDG_CONFIG_HOME/imgcache/config.",
    completion: .file())
  var config: String?

  @Flag(name: .shortAndLong, help: "Print errors only.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Say more on stderr.")
  var verbose = false

  @Flag(name: .long, help: "Machine-readable output on stdout.")
  var json = false

  @Option(name: .long, help: "Colour on stderr: auto, always or never (NO_COLOR is honoured).")
  var color: ColorMode?

  @Option(
    name: .long, help: "Append a JSON line of this run's counters to FILE (policy stats_log).",
    completion: .file())
  var statsLog: String?

  /// These options, with `parent`'s filling what was not given here.
  func merged(with parent: GlobalOptions?) -> GlobalOptions {
    guard let parent else { return self }
    var result = self
    result.dir = dir ?? parent.dir
    result.config = config ?? parent.config
    result.quiet = quiet || parent.quiet
    result.verbose = verbose || parent.verbose
    result.json = json || parent.json
    result.color = color ?? parent.color
    result.statsLog = statsLog ?? parent.statsLog
    return result
  }
}

/// When stderr gets colour.
enum ColorMode: String, ExpressibleByArgument, CaseIterable {
  case auto, always, never

  // Spelled out: the default derives them by reflection, at every start.
  static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
