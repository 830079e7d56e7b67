import Foundation
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

  /// The console for errors reported before a command resolved its options.
  static let standard = Console(quiet: false, verbose: false, color: nil)

  init(quiet: Bool, verbose: Bool, color: ColorMode?) {
    self.quiet = quiet
    self.verbose = verbose
    let environment = ProcessInfo.processInfo.environment
    switch color ?? .auto {
    case .always: self.color = true
    case .never: self.color = false
    case .auto:
      self.color =
        environment["NO_COLOR"].map(\.isEmpty) ?? true && isatty(STDERR_FILENO) == 1
        && environment["TERM"] != "dumb"
    }
  }

  /// Whether stdout's reader went away.
  var stdoutClosed: Bool { closed.load(ordering: .relaxed) }

  /// Writes one line of data to stdout; false once stdout is closed.
  @discardableResult
  func data(_ line: String) -> Bool {
    guard !stdoutClosed else { return false }
    if !Self.write(STDOUT_FILENO, line + "\n") { closed.store(true, ordering: .relaxed) }
    return !stdoutClosed
  }

  /// An error, always shown.
  func error(_ text: String) { emit("imgcache: " + text, style: "31") }
  /// A warning, hidden by `-q`.
  func warning(_ text: String) { if !quiet { emit("imgcache: warning: " + text, style: "33") } }
  /// Information, hidden by `-q`.
  func info(_ text: String) { if !quiet { emit(text, style: nil) } }
  /// Detail, shown with `-v`.
  func detail(_ text: String) { if verbose && !quiet { emit(text, style: "2") } }

  /// Raw text to stderr (progress bars).
  func stderr(_ text: String) { _ = Self.write(STDERR_FILENO, text) }

  private func emit(_ text: String, style: String?) {
    let line = color && style != nil ? "\u{1B}[\(style ?? "")m\(text)\u{1B}[0m" : text
    stderr(line + "\n")
  }

  private static func write(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      bytes = bytes.dropFirst(n)
    }
    return true
  }
}
