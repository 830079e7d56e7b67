import FoundationEssentials

// Everything here reads values from outside (a flag, a policy file): numbers go through
// `Checked`, nothing traps, and every error is one line naming what was wrong (docs/design.md,
// Untrusted input).

extension ResizeGeometry {
  /// Parses ImageMagick's geometry: `W`, `Wx`, `xH`, `WxH`, each with an optional `^` (cover,
  /// both sides needed), `!` (exact, both sides needed) or `>` (shrink only). `X` is read as
  /// `x`. Throws ``CacheError/Kind/invalidInput`` naming the geometry.
  public static func parse(_ text: String) throws -> ResizeGeometry {
    let bad = { (why: String) in CacheError(.invalidInput, "geometry '\(text)': \(why)") }
    var body = Substring(text)
    var fit = Fit.inside
    var shrinkOnly = false
    switch body.last {
    case "^": fit = .cover
    case "!": fit = .fill
    case ">": shrinkOnly = true
    case "<": throw bad("'<' (enlarge only) is not supported; use enlarge")
    case "%", "@": throw bad("percentages and areas are not supported; give WxH")
    default: break
    }
    if fit != .inside || shrinkOnly { body = body.dropLast() }
    let parts = body.lowercased().split(
      separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
    func side(_ part: Substring, _ name: String) throws -> Int? {
      if part.isEmpty { return nil }
      guard part.allSatisfy({ $0.isASCII && $0.isNumber }) else {
        throw bad("the \(name) is not a number")
      }
      guard let value = Checked.digits(part), value >= 1, value <= Int64(maxSide) else {
        throw bad("the \(name) must be 1 to \(maxSide) pixels")
      }
      return Int(value)
    }
    let width = try side(parts[0], "width")
    let height = parts.count == 2 ? try side(parts[1], "height") : nil
    if let problem = problem(width: width, height: height, fit: fit, shrinkOnly: shrinkOnly) {
      throw bad(problem)
    }
    return try ResizeGeometry(width: width, height: height, fit: fit, shrinkOnly: shrinkOnly)
  }
}

extension Gravity {
  /// Parses a gravity name, case-insensitively; `center` is read as `centre`.
  public static func parse(_ text: String) throws -> Gravity {
    let name = text.lowercased()
    if let gravity = Gravity(rawValue: name == "center" ? "centre" : name) { return gravity }
    let known = allCases.map(\.rawValue).joined(separator: ", ")
    throw CacheError(.invalidInput, "gravity '\(text)': expected one of \(known)")
  }
}

extension VariantFormat {
  /// Parses an output format name, case-insensitively; `jpg` is read as `jpeg`.
  public static func parse(_ text: String) throws -> VariantFormat {
    let name = text.lowercased()
    if let format = VariantFormat(rawValue: name == "jpg" ? "jpeg" : name) { return format }
    let known = allCases.map(\.rawValue).joined(separator: ", ")
    throw CacheError(.invalidInput, "format '\(text)': expected one of \(known)")
  }
}

extension VariantSpec {
  /// Parses a quality: digits only, 1 to 100.
  public static func parseQuality(_ text: String) throws -> Int {
    guard let value = Checked.digits(text), value >= 1, value <= 100 else {
      throw CacheError(.invalidInput, "quality '\(text)': expected a whole number from 1 to 100")
    }
    return Int(value)
  }

  /// Parses a preset as a policy value writes it, `320x320^ webp q=75`: tokens separated by
  /// spaces or tabs, in any order, each at most once — a geometry, a format name, `q=N`,
  /// `gravity=NAME`, `enlarge`, `keep-metadata`, `no-rotate`, `animated`. Throws
  /// ``CacheError/Kind/invalidInput`` naming the token at fault.
  public static func parse(preset text: String) throws -> VariantSpec {
    var fields = PresetFields()
    let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    guard !tokens.isEmpty else {
      throw CacheError(.invalidInput, "variant preset is empty: give a geometry or a format")
    }
    for token in tokens {
      do { try fields.read(token) } catch let error as CacheError {
        throw CacheError(.invalidInput, "variant preset '\(text)': \(error.detail)")
      }
    }
    do {
      return try VariantSpec(
        geometry: fields.geometry, gravity: fields.gravity ?? .centre,
        format: fields.format ?? .same, quality: fields.quality, enlarge: fields.enlarge,
        keepMetadata: fields.keepMetadata, noRotate: fields.noRotate, animated: fields.animated)
    } catch let error as CacheError {
      throw CacheError(.invalidInput, "variant preset '\(text)': \(error.detail)")
    }
  }
}

/// The fields of a preset as its tokens are read.
private struct PresetFields {
  var geometry: ResizeGeometry?
  var gravity: Gravity?
  var format: VariantFormat?
  var quality: Int?
  var enlarge = false
  var keepMetadata = false
  var noRotate = false
  var animated = false
  /// The tokens read so far, by what they set, to refuse a second one.
  private var seen: [String: String] = [:]

  mutating func read(_ token: String) throws {
    let lower = token.lowercased()
    if let value = lower.dropPrefix("q=") {
      try once("quality", token)
      quality = try VariantSpec.parseQuality(String(value))
    } else if let value = lower.dropPrefix("gravity=") {
      try once("gravity", token)
      gravity = try Gravity.parse(String(value))
    } else if let flag = Flag(rawValue: lower) {
      try once(flag.rawValue, token)
      switch flag {
      case .enlarge: enlarge = true
      case .keepMetadata: keepMetadata = true
      case .noRotate: noRotate = true
      case .animated: animated = true
      }
    } else if let format = try? VariantFormat.parse(lower) {
      try once("format", token)
      self.format = format
    } else if let first = lower.first, first.isASCII, first.isNumber || first == "x" {
      try once("geometry", token)
      geometry = try ResizeGeometry.parse(token)
    } else {
      throw CacheError(
        .invalidInput,
        "unknown token '\(token)': expected a geometry (320x240^), a format "
          + "(\(VariantFormat.allCases.map(\.rawValue).joined(separator: ", "))), q=N, "
          + "gravity=NAME, enlarge, keep-metadata, no-rotate or animated")
    }
  }

  /// Records that `what` was set by `token`; throws when it already was.
  private mutating func once(_ what: String, _ token: String) throws {
    if let earlier = seen[what] {
      throw CacheError(.invalidInput, "'\(token)': \(what) already given by '\(earlier)'")
    }
    seen[what] = token
  }

  private enum Flag: String {
    case enlarge
    case keepMetadata = "keep-metadata"
    case noRotate = "no-rotate"
    case animated
  }
}

extension String {
  /// The rest of the string after `prefix`, or nil when it does not start with it.
  fileprivate func dropPrefix(_ prefix: String) -> Substring? {
    hasPrefix(prefix) ? dropFirst(prefix.count) : nil
  }
}

extension VariantSpec {
  /// The spec as a preset's text, which ``parse(preset:)`` reads back as the same spec (a
  /// job's record keeps its variant so).
  public var presetText: String {
    var tokens = [String]()
    if let geometry { tokens.append(geometry.text) }
    tokens.append(format.rawValue)
    if let quality { tokens.append("q=\(quality)") }
    if gravity != .centre { tokens.append("gravity=\(gravity.rawValue)") }
    if enlarge { tokens.append("enlarge") }
    if keepMetadata { tokens.append("keep-metadata") }
    if noRotate { tokens.append("no-rotate") }
    if animated { tokens.append("animated") }
    return tokens.joined(separator: " ")
  }
}
