import FoundationEssentials

/// The opt-outs of `X-Robots-Tag` response headers that a download with `--robots` honours
/// (docs/design.md, Politeness): `noimageai`, `noai` and `none`, for every agent or for ours.
/// Each header line is a comma-separated list of directives; `name: directive` addresses what
/// follows it on that line to the agent `name` (`X-Robots-Tag: googlebot: noindex, noai`).
public enum RobotsTag {
  /// imgcache's product token, in robots.txt groups and `X-Robots-Tag` lines.
  public static let agent = "imgcache"
  /// The directives that opt a response out of being downloaded here.
  static let optOuts: Set<String> = ["noimageai", "noai", "none"]
  /// Directives that carry a value after a colon: not agent names.
  static let valued: Set<String> = [
    "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview",
  ]

  /// The opt-out directive `lines` (the header's values, one per line received) address to
  /// `agent` or to everyone; nil when there is none.
  public static func optOut(in lines: [String], agent: String) -> String? {
    let agent = agent.lowercased()
    for line in lines {
      var addressed: String?
      for part in line.split(separator: ",") {
        var directive = part.trimmingWhitespace().lowercased()
        if let colon = directive.firstIndex(of: ":") {
          let name = directive[..<colon].trimmingWhitespace()
          // An agent is a product token (letters, `_`, `-`); anything else before a colon is
          // part of a value (`unavailable_after: 25-Jun-10 15:00:00 PST`).
          if !valued.contains(name) && isProductToken(name) {
            addressed = name
            directive = directive[directive.index(after: colon)...]
              .trimmingWhitespace()
          }
        }
        guard addressed == nil || addressed == agent else { continue }
        if optOuts.contains(directive) { return directive }
      }
    }
    return nil
  }

  /// Whether `name` can be an agent's product token.
  static func isProductToken(_ name: String) -> Bool {
    !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }
  }
}
