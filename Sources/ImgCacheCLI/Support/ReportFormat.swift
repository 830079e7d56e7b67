import ArgumentParser
import ImgCacheKit

/// The forms `stats` and `job status` print (`--format`).
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json, openmetrics, prometheus

  /// The form of `--format` and `--json`: the format given, else JSON with `--json`, else
  /// text. `--json` with another format is a usage error.
  static func resolve(_ format: ReportFormat?, json: Bool) throws -> ReportFormat {
    if json, let format, format != .json {
      throw ValidationError("--json and --format \(format.rawValue) disagree: give one")
    }
    return format ?? (json ? .json : .text)
  }

  /// The metrics' text format, for the two that are one.
  var exposition: Exposition? {
    switch self {
    case .openmetrics: .openMetrics
    case .prometheus: .prometheus
    case .text, .json: nil
    }
  }
}
