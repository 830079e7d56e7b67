import Foundation
import Testing

@testable import ImgCacheKit
@testable import ImgCacheSupport

/// The project's replacements of Foundation's text helpers (`Support/Text.swift`,
/// `FileIO.parent(of:)`, `StandardPath`, `concatenated(separator:)`) against the Foundation
/// calls they replace, which the tests may still use: the same answer for every input here,
/// hand-picked edges and seeded random strings.
@Suite("Foundation's text helpers replaced: the same answers as Foundation's")
struct TextTests {
  /// Strings of spaces, tabs, line ends, Unicode spaces, percent signs, hex digits, slashes
  /// and letters: the characters each helper treats specially.
  static func strings(count: Int, seed: UInt64) -> [String] {
    let alphabet: [Character] = [
      " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2003}", "\u{2028}",
      "\u{3000}", "%", "2", "0", "f", "F", "g", "/", ".", "a", "é", "😀", "=",
    ]
    var generator = SplitMix(seed: seed)
    var strings = [String]()
    for _ in 0..<count {
      var text = ""
      for _ in 0..<Int.random(in: 0...8, using: &generator) {
        text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
      }
      strings.append(text)
    }
    return strings
  }

  @Test("trimming white space, with and without line ends")
  func trimming() {
    for text in Self.strings(count: 5_000, seed: 1) + ["", " ", "\t a b \t", " \u{A0}x\u{3000}"] {
      #expect(
        text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces),
        "\(text.debugDescription)")
      #expect(
        text.trimmingWhitespaceAndNewlines()
          == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
    }
  }

  @Test("percent-decoding, and nil where Foundation gives nil")
  func percentDecoding() {
    let edges = [
      "", "%", "%2", "%20", "%2g", "a%41b", "%C3%A9", "%C3", "%FF", "%%41", "x%e2%82%ac",
    ]
    for text in Self.strings(count: 5_000, seed: 2) + edges {
      #expect(text.percentDecoded == text.removingPercentEncoding, "\(text.debugDescription)")
    }
  }

  @Test("printf's %.Nf, %.Ng and %02x")
  func printf() {
    var generator = SplitMix(seed: 3)
    var values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 9.95, 59.94, 1e21, -3.5, 1.0 / 3, 1e-7]
    values += (0..<2_000).map { _ in Double.random(in: -1e6...1e6, using: &generator) }
    values += (0..<2_000).map { _ in Double.random(in: 0...100, using: &generator) }
    for value in values {
      for digits in [0, 1, 2, 4] {
        #expect(Printf.fixed(value, digits: digits) == String(format: "%.\(digits)f", value))
        #expect(Printf.general(value, digits: digits) == String(format: "%.\(digits)g", value))
      }
    }
    #expect(Printf.fixed(.infinity, digits: 1) == String(format: "%.1f", Double.infinity))
    #expect(Printf.fixed(1e300, digits: 2) == String(format: "%.2f", 1e300))
    for byte in UInt8.min...UInt8.max {
      #expect(Hex.encode([byte]) == String(format: "%02x", byte))
    }
    #expect(Hex.encode([0, 15, 16, 255] as [UInt8]) == "000f10ff")
  }

  @Test("a path's folder, as deletingLastPathComponent gives it")
  func parentFolder() {
    // Absolute paths against Foundation; Foundation's own answer traps on relative ones ("a",
    // "a/": its `_startOfLastPathComponent`) and on some non-ASCII ones, and gives "" for "//".
    let paths = Self.strings(count: 5_000, seed: 4).filter { $0.allSatisfy(\.isASCII) }
      .map { "/" + $0 }.filter { $0.contains { $0 != "/" } }
    let edges = ["/a", "/a/", "/a/b", "/a/b/", "/a//b", "/a/b//", "///a", "/./a", "/../a"]
    for path in paths + edges {
      #expect(
        FileIO.parent(of: path) == (path as NSString).deletingLastPathComponent,
        "\(path.debugDescription)")
    }
    let expected = [
      "": "", "/": "/", "//": "/", "a": "", "a/": "", "a/b": "a", "a/b/c/": "a/b", "./a": ".",
      "../a": "..",
    ]
    for (path, parent) in expected { #expect(FileIO.parent(of: path) == parent, "\(path)") }
  }

  @Test("a path made absolute and standard, as standardizedFileURL gives it")
  func standardPath() throws {
    // Relative ones against the working folder, `~` and `~user` from the password database,
    // dot segments, repeated and trailing slashes, and seeded strings of slashes, dots, `~`.
    var edges = [
      "/", "//", "///", "/.", "/..", "/../a", "/a/..", "/a/../..", "/a/./b/", "/a//b//", ".",
      "..", "a", "a/", "./a", "../a", "a/../..", "../../../../../../../a", "~", "~/", "~/a/../b",
      "~root/x", "~no-such-user-here/x", "~x", "a/~/b", "/a/b c/é", "/a?b#c;d", "/tmp/.../x",
      "/tmp/..x/.x", "a:b", "/a/%20b",
    ]
    var generator = SplitMix(seed: 7)
    let alphabet: [Character] = ["/", ".", "~", "a", "b"]
    for _ in 0..<1_500 {
      var text = ""
      for _ in 0..<Int.random(in: 1...10, using: &generator) {
        text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
      }
      // Foundation resolves a relative path's `..` after an empty segment against that
      // segment (`.//../x` is `$PWD/x` to it); POSIX, and StandardPath, against the folder
      // before it (below).
      if text.hasPrefix("/") || !text.contains("//") { edges.append(text) }
    }
    for path in edges {
      let standard = try #require(StandardPath.of(path))
      #expect(
        standard == URL(fileURLWithPath: path).standardizedFileURL.path, "\(path.debugDescription)")
    }
    let parent = FileIO.parent(of: FileManager.default.currentDirectoryPath)
    #expect(StandardPath.of(".//../x") == (parent == "/" ? "" : parent) + "/x")
  }

  @Test("strings concatenated with a separator, as joined(separator:) gives them")
  func concatenatedStrings() {
    for strings in [[], [""], ["", ""], ["a"], ["a", "b"], ["ab", "", "c", "😀"]] as [[String]] {
      for separator in ["", ", ", "/"] {
        #expect(
          strings.concatenated(separator: separator) == strings.joined(separator: separator))
      }
    }
  }
}
