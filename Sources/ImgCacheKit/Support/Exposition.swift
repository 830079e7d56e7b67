/// A metric family of the Prometheus text exposition format (0.0.4) and of OpenMetrics 1.0
/// (docs/design.md, Metrics): its name (a counter's without `_total`), one line of help, its
/// type, its unit when it has one (the name then ends with `_` + unit), and its samples.
package struct MetricFamily: Sendable, Equatable {
  /// What the samples count.
  package enum Kind: String, Sendable {
    /// Only ever goes up (until `stats --zero`); its samples are named `<name>_total`.
    case counter
    /// A value now.
    case gauge
  }

  /// `imgcache_downloaded_bytes`: letters, digits and `_`, a counter's without `_total`.
  package var name: String
  /// One line of help.
  package var help: String
  /// Counter or gauge.
  package var kind: Kind
  /// `bytes` or `seconds`, when the family has a base unit.
  package var unit: String?
  /// The samples, one per set of labels.
  package var samples: [MetricSample]

  /// A family of `samples`.
  package init(
    _ name: String, _ kind: Kind, help: String, unit: String? = nil, samples: [MetricSample]
  ) {
    (self.name, self.kind, self.help, self.unit, self.samples) = (name, kind, help, unit, samples)
  }

  /// The name of its samples: `<name>_total` for a counter.
  package var sampleName: String { kind == .counter ? name + "_total" : name }
}

/// One sample of a family: its labels, in order, and its value.
package struct MetricSample: Sendable, Equatable {
  /// A sample's value: a count, or a measure.
  package enum Value: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
  }

  /// Label names (letters, digits, `_`) and their values (any text: escaped when written).
  package var labels: [(name: String, value: String)]
  /// The value.
  package var value: Value

  /// A sample of `value` with `labels`.
  package init(_ value: Value, labels: [(name: String, value: String)] = []) {
    (self.value, self.labels) = (value, labels)
  }

  package static func == (left: MetricSample, right: MetricSample) -> Bool {
    left.value == right.value && left.labels.elementsEqual(right.labels) { $0 == $1 }
  }
}

/// The two text formats of metrics, and their writer.
package enum Exposition: String, Sendable, CaseIterable {
  /// OpenMetrics 1.0 (`application/openmetrics-text; version=1.0.0`): `# UNIT` lines, counters'
  /// families named without `_total`, `# EOF` at the end.
  case openMetrics = "openmetrics"
  /// Prometheus's text format 0.0.4 (`text/plain; version=0.0.4`), which `promtool check
  /// metrics` and node_exporter's textfile collector read: families named as their samples.
  case prometheus

  /// `families` in this format, every sample labelled `common` first; one line a sample.
  package func text(_ families: [MetricFamily], common: [(name: String, value: String)] = [])
    -> String
  {
    var text = ""
    for family in families where !family.samples.isEmpty {
      let name = self == .openMetrics ? family.name : family.sampleName
      text += "# HELP \(name) \(Self.escaped(family.help, quotes: self == .openMetrics))\n"
      text += "# TYPE \(name) \(family.kind.rawValue)\n"
      if self == .openMetrics, let unit = family.unit { text += "# UNIT \(name) \(unit)\n" }
      for sample in family.samples {
        text += family.sampleName + Self.labels(common + sample.labels) + " "
        text += Self.number(sample.value) + "\n"
      }
    }
    if self == .openMetrics { text += "# EOF\n" }
    return text
  }

  /// `{a="x",b="y"}`, or nothing without labels.
  private static func labels(_ labels: [(name: String, value: String)]) -> String {
    guard !labels.isEmpty else { return "" }
    return "{"
      + labels.map { "\($0.name)=\"\(escaped($0.value, quotes: true))\"" }
      .joined(separator: ",") + "}"
  }

  /// `text` with `\`, a line feed (and `"` when `quotes`) escaped, as both formats escape a
  /// label's value (and OpenMetrics a help text).
  static func escaped(_ text: String, quotes: Bool) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text.unicodeScalars {
      switch character {
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\"" where quotes: out += "\\\""
      default: out.unicodeScalars.append(character)
      }
    }
    return out
  }

  /// A value as both formats write it: an integer as one; a real in Swift's shortest form,
  /// which Go's `ParseFloat` reads back exactly, `+Inf`, `-Inf` or `NaN`.
  static func number(_ value: MetricSample.Value) -> String {
    switch value {
    case .integer(let number): return String(number)
    case .real(let number):
      if number.isNaN { return "NaN" }
      if number.isInfinite { return number > 0 ? "+Inf" : "-Inf" }
      return "\(number)"
    }
  }
}
