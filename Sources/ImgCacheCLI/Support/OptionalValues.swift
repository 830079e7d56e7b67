/// Options whose value may be left out, as curl's and wget's are: `--stale-if-error` alone
/// means `--stale-if-error=any`. swift-argument-parser has no optional option values, so the
/// bare option is rewritten before parsing; a value must then follow `=`.
enum OptionalValues {
  /// Each option that may stand alone, and the value it then has.
  static let defaults = ["--stale-if-error": "any"]

  /// `arguments` with each bare optional-value option given its value; nothing after `--`.
  static func expand(_ arguments: [String]) -> [String] {
    var expanded = [String]()
    var options = true
    for argument in arguments {
      if argument == "--" { options = false }
      if options, let value = defaults[argument] {
        expanded.append(argument + "=" + value)
      } else {
        expanded.append(argument)
      }
    }
    return expanded
  }
}
