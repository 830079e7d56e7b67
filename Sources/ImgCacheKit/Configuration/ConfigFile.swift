import FoundationEssentials
import Glibc

/// A policy file (`key = value` lines and `#` comments) edited in place: `config set` and
/// `config unset` change one key's line and keep every other line, comment and blank as it was.
public enum ConfigFile {
  /// The largest policy file read: its forty-odd keys fit in a few KiB; a larger one is
  /// something else, refused rather than read into memory.
  static let sizeLimit = 1 << 20

  /// The bytes of the policy file at `path`, or nil when there is none; one that cannot be
  /// read whole (a FIFO, a folder, over ``sizeLimit``, unreadable) is a `kind` error naming it.
  static func contents(of path: String, failing kind: CacheError.Kind) throws -> [UInt8]? {
    do {
      return try WholeFile.readIfPresent(path, limit: sizeLimit)
    } catch {
      throw CacheError(kind, "cannot read config file \(path): \(WholeFile.reason(error))")
    }
  }

  /// Sets `name` to `value` in the file at `path` (created when missing, with its folder):
  /// the key's first line is replaced, later lines of the same key are removed, or a line is
  /// appended. The value is checked first; a bad key or value is an `.invalidInput` error.
  public static func set(_ name: String, to value: String, in path: String) throws {
    let key = try policyKey(name)
    var scratch = Configuration()
    guard value.isSingleLine else {
      throw CacheError(
        .invalidInput,
        "invalid \(key.name): the value holds a control character or a line break")
    }
    guard !value.contains("#"), try key.apply(&scratch, value) else {
      throw CacheError(
        .invalidInput, "invalid \(key.name) '\(key.redact(value))' (expected \(key.expected))")
    }
    var lines = try read(path)
    let line = "\(key.name) = \(value)"
    if let first = lines.firstIndex(where: { Self.key(of: $0) == key.name }) {
      // A comment at the end of the old line stays.
      let comment = lines[first].firstIndex(of: "#").map { "  " + lines[first][$0...] } ?? ""
      lines[first] = line + comment
      lines = lines.enumerated().filter {
        $0.offset <= first || Self.key(of: $0.element) != key.name
      }
      .map(\.element)
    } else {
      if lines.last == "" { lines.removeLast() }
      lines.append(line)
    }
    try write(lines, to: path)
  }

  /// Removes every line of `name` from the file at `path`; returns whether there was one.
  @discardableResult
  public static func unset(_ name: String, in path: String) throws -> Bool {
    let key = try policyKey(name)
    let lines = try read(path)
    let kept = lines.filter { Self.key(of: $0) != key.name }
    guard kept.count != lines.count else { return false }
    try write(kept, to: path)
    return true
  }

  /// The key named `name`, or an `.invalidInput` error listing the known keys.
  public static func policyKey(_ name: String) throws -> PolicyKey {
    guard let key = PolicyKey.named(name) else {
      let known = PolicyKey.all.map(\.name).joined(separator: ", ")
      throw CacheError(.invalidInput, "unknown policy key '\(name)' (known: \(known))")
    }
    return key
  }

  /// What one line of a policy file says, once its `#` comment is dropped.
  package enum Line: Equatable {
    /// Blank, or a comment only.
    case blank
    /// `key = value`, both trimmed.
    case assignment(key: String, value: String)
    /// Text without `=`: the text.
    case malformed(String)
  }

  /// The lines of a policy file's text: split on LF only (a CRLF's CR dropped), never on
  /// the other characters Swift calls newlines (U+2028, U+2029, NEL, VT, FF), which a reader
  /// and a writer could otherwise disagree on (a value that becomes two lines).
  package static func lines(of text: String) -> [Substring] {
    // On scalars: "\r\n" is a single Character, which a Character split would not cut.
    text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      Substring(line.last == "\r" ? line.dropLast() : line)
    }
  }

  /// Parses one line: the reader of policy files and `config set` read lines alike.
  package static func parse<Text: StringProtocol>(_ line: Text) -> Line {
    let content =
      line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
      .first.map { $0.trimmingWhitespaceAndNewlines() } ?? ""
    if content.isEmpty { return .blank }
    guard let equals = content.firstIndex(of: "=") else { return .malformed(content) }
    return .assignment(
      key: content[..<equals].trimmingWhitespace(),
      value: content[content.index(after: equals)...].trimmingWhitespace())
  }

  /// The key a line sets, if it sets one.
  static func key(of line: String) -> String? {
    guard case .assignment(let key, _) = parse(line) else { return nil }
    return key
  }

  private static func read(_ path: String) throws -> [String] {
    guard let bytes = try contents(of: path, failing: .localIO) else { return [] }
    // Lines are written back with LF.
    var lines = Self.lines(of: String(decoding: bytes, as: UTF8.self)).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }

  /// Writes atomically (a temporary file beside it, then a rename), keeping the file's mode;
  /// a new file is 0600. A config file that is a symbolic link (a dotfile kept in a
  /// repository) is written through: its target gets the new text, the link stays.
  private static func write(_ lines: [String], to link: String) throws {
    let path = try target(of: link)
    do {
      try FileManager.default.createDirectory(
        atPath: FileIO.folder(of: path), withIntermediateDirectories: true)
      var info = stat()
      let mode = stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o600
      let text = lines.map { $0 + "\n" }.joined()
      try FileIO.writeAtomically(Data(text.utf8), to: path)
      chmod(path, mode)
    } catch {
      throw CacheError.io("cannot write config file \(path)", error)
    }
  }

  /// The file `path` names once every symbolic link on the way is followed (a link's
  /// relative target counts from the link's folder); `path` itself when it is no link.
  static func target(of path: String) throws -> String {
    var current = path
    for _ in 0..<40 {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count >= 0 else { return current }
      let destination = String(
        decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current =
        destination.hasPrefix("/")
        ? destination
        : FileIO.path(destination, in: FileIO.parent(of: current))
    }
    throw CacheError(
      .invalidInput, "cannot write config file \(path): too many levels of symbolic links")
  }
}
