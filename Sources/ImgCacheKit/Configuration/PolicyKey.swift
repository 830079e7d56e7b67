import FoundationEssentials

/// One policy key: its name, what it means, the flag that sets it, how its text becomes a
/// typed value of ``Configuration``, and how that value is written back. The default of each
/// key is the value of a default ``Configuration``, so it is written once, in the engine's types.
public struct PolicyKey: Sendable, Hashable, CustomStringConvertible {
  /// The name in files (`max_age`); the variable is `IMGCACHE_` + its uppercase.
  public let name: String
  /// One line of documentation.
  public let summary: String
  /// What a value looks like, for error messages.
  public let expected: String
  /// Sets the key's value from its text: false when the text is not of the expected form, or
  /// an `.invalidInput` error that says precisely what is wrong.
  package let apply: @Sendable (inout Configuration, String) throws -> Bool
  let render: @Sendable (Configuration) -> String
  /// How a value is shown (`config`): credentials hidden.
  var redact: @Sendable (String) -> String = { $0 }
  /// The flag when it is not the name's (`remote_storage` is set by `--remote`).
  var flagName: String?

  public static func == (lhs: PolicyKey, rhs: PolicyKey) -> Bool { lhs.name == rhs.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
  public var description: String { name }

  /// The environment variable that sets the key.
  public var environmentName: String { "IMGCACHE_" + name.uppercased() }
  /// The command-line flag that sets the key.
  public var flag: String { flagName ?? "--" + name.replacing("_", with: "-") }
  /// The built-in default, as a user would write it.
  public var defaultText: String { render(Configuration()) }

  /// The key named `name`, if there is one.
  public static func named(_ name: String) -> PolicyKey? {
    if let key = all.first(where: { $0.name == name }) { return key }
    guard name.hasPrefix(presetPrefix) else { return nil }
    return preset(String(name.dropFirst(presetPrefix.count)))
  }
}

// Each helper takes the key's path as an autoclosure, evaluated only when the key is applied
// or rendered: a key path literal is instantiated at run time (about 20,000 instructions), and
// building every key's eagerly cost each command 620,000 (a twentieth of a hit), though most
// runs set none.
extension PolicyKey {
  /// A key whose value `parse` reads (nil: not one) and `render` writes back.
  static func parsed<Value>(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Value>,
    expected: String, parse: @escaping @Sendable (String) -> Value?,
    render: @escaping @Sendable (Value) -> String
  ) -> PolicyKey {
    PolicyKey(
      name: name, summary: summary, expected: expected,
      apply: { config, text in
        guard let value = parse(text) else { return false }
        config[keyPath: path()] = value
        return true
      }, render: { render($0[keyPath: path()]) })
  }

  static func size(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Int64>
  ) -> PolicyKey {
    parsed(
      name, summary, path(), expected: "a size like 500K, 20M, 1.5G", parse: PolicyValue.size,
      render: PolicyValue.text(size:))
  }

  static func duration(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, TimeInterval>,
    positive: Bool = false,
    negativeIsNever: Bool = false
  ) -> PolicyKey {
    let expected = "a duration with a unit like 90s, 30m, 12h, 7d, 2w, at most 100 years"
    return PolicyKey(
      name: name, summary: summary,
      expected: positive ? "a positive duration (\(expected))" : expected,
      apply: { config, text in
        if negativeIsNever && (text == "never" || text == "-1") {
          config[keyPath: path()] = -1
          return true
        }
        guard let value = PolicyValue.duration(text), value >= 0 || negativeIsNever,
          value > 0 || !positive
        else { return false }
        config[keyPath: path()] = value
        return true
      }, render: { PolicyValue.text(duration: $0[keyPath: path()]) })
  }

  static func rate(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Double>
  ) -> PolicyKey {
    parsed(
      name, summary, path(), expected: "a rate like 10/s, 600/m or 3600/h, or 0 (none)",
      parse: PolicyValue.rate, render: PolicyValue.text(rate:))
  }

  static func integer(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Int>,
    minimum: Int, maximum: Int
  ) -> PolicyKey {
    PolicyKey(
      name: name, summary: summary, expected: "a whole number from \(minimum) to \(maximum)",
      apply: { config, text in
        guard let value = Int(text), value >= minimum, value <= maximum else { return false }
        config[keyPath: path()] = value
        return true
      }, render: { "\($0[keyPath: path()])" })
  }

  static func boolean(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Bool>
  ) -> PolicyKey {
    PolicyKey(
      name: name, summary: summary, expected: "true or false",
      apply: { config, text in
        switch text.lowercased() {
        case "1", "true", "yes", "on": config[keyPath: path()] = true
        case "0", "false", "no", "off": config[keyPath: path()] = false
        default: return false
        }
        return true
      }, render: { "\($0[keyPath: path()])" })
  }

  static func text(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, String?>
  ) -> PolicyKey {
    PolicyKey(
      name: name, summary: summary, expected: "a value without control characters",
      apply: { config, text in
        guard !text.containsControlCharacters else { return false }
        config[keyPath: path()] = text.isEmpty ? nil : text
        return true
      }, render: { $0[keyPath: path()] ?? "" })
  }

  static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
    _ name: String, _ summary: String,
    _ path: @autoclosure @escaping @Sendable () -> WritableKeyPath<Configuration, Value>
  ) -> PolicyKey where Value.RawValue == String {
    // A loop, not `map(\.rawValue).joined(separator:)`: a key path is an object made at first
    // use, and the join's generic types cost conformance lookups, at every start for every
    // key of this kind (docs/architecture.md, Start-up).
    var expected = ""
    for value in Value.allCases { expected += (expected.isEmpty ? "" : " or ") + value.rawValue }
    return PolicyKey(
      name: name, summary: summary,
      expected: expected,
      apply: { config, text in
        guard let value = Value(rawValue: text.lowercased()) else { return false }
        config[keyPath: path()] = value
        return true
      }, render: { $0[keyPath: path()].rawValue })
  }
}
