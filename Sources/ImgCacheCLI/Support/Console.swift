import FoundationEssentials
import Glibc
import ImgCacheKit
import Synchronization

/// stdout for data, stderr for messages (`imgcache: ...`); a closed stdout ends output quietly.
///
/// No lock: each line is one `write(2)` loop, and a flag records that stdout's reader left.
final class Console: Sendable {
  let quiet: Bool
  let verbose: Bool
  let color: Bool
  /// Whether stderr is a terminal (a progress bar is drawn only then).
  let stderrIsTerminal = isatty(STDERR_FILENO) == 1
  private let closed = Atomic<Bool>(false)
  private let writeError = Atomic<Int32>(0)

  /// The console for errors reported before a command resolved its options.
  static let standard = Console(quiet: false, verbose: false, color: nil)

  init(quiet: Bool, verbose: Bool, color: ColorMode?) {
    self.quiet = quiet
    self.verbose = verbose
    let environment = ProcessEnvironment.current
    switch color ?? .auto {
    case .always: self.color = true
    case .never: self.color = false
    case .auto:
      self.color =
        environment["NO_COLOR"].map(\.isEmpty) ?? true && isatty(STDERR_FILENO) == 1
        && environment["TERM"] != "dumb"
    }
  }

  /// Whether stdout can take no more (its reader went away, or a write failed).
  var stdoutClosed: Bool { closed.load(ordering: .relaxed) }

  /// The error of a failed write to stdout other than a closed pipe (disk full, I/O error),
  /// which the command must report; a closed pipe ends output quietly.
  var stdoutError: CacheError? {
    let code = writeError.load(ordering: .relaxed)
    guard code != 0 else { return nil }
    return CacheError(
      .localIO, "cannot write to standard output: \(String(cString: strerror(code)))")
  }

  /// Writes one line of data (or several, joined) to stdout; false once stdout is closed.
  @discardableResult
  func data(_ line: String, terminator: String = "\n") -> Bool {
    guard !stdoutClosed else { return false }
    let code = Self.write(STDOUT_FILENO, line + terminator)
    if code != 0 {
      closed.store(true, ordering: .relaxed)
      if code != EPIPE { writeError.store(code, ordering: .relaxed) }
    }
    return !stdoutClosed
  }

  /// An error, always shown.
  func error(_ text: String) { emit("imgcache: " + text, style: "31") }
  /// A warning, hidden by `-q`.
  func warning(_ text: String) { if !quiet { emit("imgcache: warning: " + text, style: "33") } }
  /// Information, hidden by `-q`.
  func info(_ text: String) { if !quiet { emit(text, style: nil) } }
  /// Detail, shown with `-v`; the text is made only then (a `fetch -i` hit names its outcome
  /// on every line).
  func detail(_ text: @autoclosure () -> String) {
    if verbose && !quiet { emit(text(), style: "2") }
  }

  /// Raw text to stderr (progress bars).
  func stderr(_ text: String) { _ = Self.write(STDERR_FILENO, text) }

  private func emit(_ text: String, style: String?) {
    let safe = Self.escaped(text)
    let line = color && style != nil ? "\u{1B}[\(style ?? "")m\(safe)\u{1B}[0m" : safe
    stderr(line + "\n")
  }

  /// `text` with every control character (C0, DEL, C1) written as `\xNN` or `\u{NN}`, so a
  /// URL or a server's words can never move the cursor, retitle or clear the terminal.
  static func escaped(_ text: String) -> String {
    guard text.containsControlCharacters else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0..<0x20, 0x7F: out += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
      case 0x80...0x9F: out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Writes all of `text`; returns 0, or the `errno` of the failed write.
  private static func write(_ fd: Int32, _ text: String) -> Int32 {
    var text = text
    // The string's own bytes (contiguous once `withUTF8` is done), not a copy into an array.
    return text.withUTF8 { bytes in
      var rest = UnsafeRawBufferPointer(bytes)
      while !rest.isEmpty {
        let n = Glibc.write(fd, rest.baseAddress, rest.count)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return n < 0 ? errno : EIO }
        rest = UnsafeRawBufferPointer(rebasing: rest[n...])
      }
      return 0
    }
  }
}

extension String {
  /// The string padded with leading zeros to `width`.
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
