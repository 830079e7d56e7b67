/// A robots.txt path pattern (RFC 9309 §2.2.3), compiled once: its literal pieces between
/// `*`s, and whether a final `$` ties it to the path's end. A match places each piece at its
/// leftmost place after the one before (Knuth–Morris–Pratt), which is the best place for the
/// pieces after it: the work is linear in the path and the pattern, whatever a hostile file
/// puts between its stars — nothing ever backtracks.
struct RobotsPattern: Sendable, Equatable {
  /// The literal pieces: the first is matched at the path's start (empty after a leading `*`).
  let pieces: [[UInt8]]
  /// Whether the pattern ended in `$`: the last piece ends the path.
  let anchored: Bool
  /// The bytes of the pieces together: a path shorter than this cannot match.
  let literalLength: Int

  /// `pattern` compiled (already normalized).
  init(_ pattern: String) {
    var bytes = Array(pattern.utf8)
    anchored = bytes.last == UInt8(ascii: "$")
    if anchored { bytes.removeLast() }
    pieces = bytes.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(
      Array.init)
    literalLength = pieces.reduce(0) { $0 + $1.count }
  }

  /// Whether the pattern matches `path` from its start (to its end when anchored; any rest
  /// otherwise).
  func matches(_ path: [UInt8]) -> Bool {
    guard literalLength <= path.count, let first = pieces.first, path.starts(with: first) else {
      return false
    }
    if pieces.count == 1 { return !anchored || path.count == first.count }
    var position = first.count
    for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
      guard let found = Self.find(piece, in: path, from: position) else { return false }
      position = found + piece.count
    }
    let last = pieces[pieces.count - 1]
    if anchored {
      return path.count - last.count >= position
        && path[(path.count - last.count)...].elementsEqual(last)
    }
    return last.isEmpty || Self.find(last, in: path, from: position) != nil
  }

  /// Where `needle` (not empty) first occurs in `haystack` at or after `start`.
  static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard needle.count <= haystack.count - start else { return nil }
    // The longest proper prefix of needle[0...i] that is also its suffix.
    var border = [Int](repeating: 0, count: needle.count)
    var length = 0
    for index in needle.indices.dropFirst() {
      while length > 0 && needle[index] != needle[length] { length = border[length - 1] }
      if needle[index] == needle[length] { length += 1 }
      border[index] = length
    }
    var matched = 0
    for index in start..<haystack.count {
      while matched > 0 && haystack[index] != needle[matched] { matched = border[matched - 1] }
      if haystack[index] == needle[matched] { matched += 1 }
      if matched == needle.count { return index - needle.count + 1 }
    }
    return nil
  }
}
