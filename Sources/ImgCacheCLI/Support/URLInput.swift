import ArgumentParser
import FoundationEssentials
import Glibc
import ImgCacheKit

/// URLs from the arguments and from `-i FILE`, for the commands that take lists.
struct URLListOptions: ParsableArguments {
  @Option(
    name: .shortAndLong, help: "Read URLs from FILE, one a line ('-' for stdin).",
    completion: .file())
  var input: String?
  @Argument(help: "URLs (taken before those of -i).")
  var urls: [String] = []

  func validate() throws {
    if urls.isEmpty && input == nil { throw ValidationError("give URLs or -i FILE") }
  }

  /// The URLs, read lazily.
  func source() throws -> URLLines { try URLLines(arguments: urls, file: input) }
}

/// URL lists: the arguments, then one URL a line of a file or stdin; blank lines and `#`
/// comments skipped. Read in 64 KiB chunks as lines are needed, so memory stays flat; a line
/// longer than ``maxLine`` stops the input with an error naming it. Waiting for input polls,
/// so a cancelled task (Ctrl-C) stops waiting at once.
final class URLLines: URLSource {
  /// The longest line accepted.
  static let maxLine = 65_536

  private var arguments: IndexingIterator<[String]>
  private let descriptor: Int32?
  private let name: String
  private var buffer = [UInt8]()
  private var chunk = [UInt8](repeating: 0, count: 65_536)
  private var start = 0
  private var finished = false
  private var lineNumber = 0
  /// Whether the last read of a pipe or terminal returned less than it could: the input was
  /// drained a moment ago. (A regular file's short read is its end; the next read says so.)
  private var drained = false
  /// Whether the input is a regular file.
  private var isRegularFile = false
  /// Whether lines without a URL come out as ``URLSourceItem/blank(line:)``.
  private let reportsBlankLines: Bool

  /// Reads `arguments`, then the lines of `file` (`-`: standard input); with
  /// `reportsBlankLines`, a blank or comment line is an item of its own instead of skipped.
  init(arguments: [String], file: String?, reportsBlankLines: Bool = false) throws {
    self.reportsBlankLines = reportsBlankLines
    self.arguments = arguments.makeIterator()
    name = file == "-" ? "standard input" : file ?? ""
    guard let file else {
      descriptor = nil
      return
    }
    if file == "-" {
      descriptor = STDIN_FILENO
      var info = stat()
      isRegularFile = fstat(STDIN_FILENO, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
      return
    }
    var info = stat()
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
      let reason = String(cString: strerror(fd >= 0 ? EISDIR : errno))
      if fd >= 0 { close(fd) }
      throw CacheError(.invalidInput, "cannot read URL list \(file): \(reason)")
    }
    descriptor = fd
    isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
  }

  deinit { if let descriptor, descriptor != STDIN_FILENO { close(descriptor) } }

  func next(wait: Bool, wake: WakeSignal?) throws -> URLSourceItem {
    if let url = arguments.next() { return .url(url) }
    guard let descriptor else { return .end }
    while true {
      if let newline = buffer[start...].firstIndex(of: 0x0A) {
        let line = buffer[start..<newline]
        start = newline + 1
        lineNumber += 1
        if let url = try url(in: line) { return .url(url) }
        if reportsBlankLines { return .blank(line: lineNumber) }
        continue
      }
      if buffer.count - start > Self.maxLine { throw tooLong(lineNumber + 1) }
      if finished {
        guard start < buffer.count else { return .end }
        let line = buffer[start...]
        start = buffer.count
        lineNumber += 1
        if let url = try url(in: line) { return .url(url) }
        return reportsBlankLines ? .blank(line: lineNumber) : .end
      }
      switch try ready(descriptor, wait: wait, wake: wake) {
      case .input: try fill(from: descriptor)
      case .nothing: return wait ? .end : .notYet
      case .woken: return .notYet
      }
    }
  }

  /// The URL of one line, or nil for a blank or comment line.
  private func url(in line: ArraySlice<UInt8>) throws -> String? {
    guard line.count <= Self.maxLine else { throw tooLong(lineNumber) }
    let text = trimmingBlanks(
      String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self))
    return text.isEmpty || text.hasPrefix("#") ? nil : text
  }

  private func tooLong(_ line: Int) -> CacheError {
    CacheError(
      .invalidInput, "line \(line) of \(name) is longer than \(Self.maxLine / 1024) KiB")
  }

  /// What a wait for input ended with.
  private enum Readiness { case input, nothing, woken }

  /// Whether `descriptor` has input (or its end) to read; with `wait`, polls until it does,
  /// `wake` is signalled (cleared, then `.woken`), or the calling task is cancelled.
  private func ready(_ descriptor: Int32, wait: Bool, wake: WakeSignal?) throws -> Readiness {
    // A short read drained the input a moment ago: what comes next joins the next batch, so a
    // co-process's line costs one poll, not two.
    if !wait && drained {
      drained = false
      return .nothing
    }
    let woken = wait ? wake : nil
    var pollers = (
      pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: woken?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
    )
    while true {
      let count = withUnsafeMutablePointer(to: &pollers) {
        $0.withMemoryRebound(to: pollfd.self, capacity: 2) {
          poll($0, woken == nil ? 1 : 2, wait ? 100 : 0)
        }
      }
      if count > 0 {
        if pollers.0.revents != 0 { return .input }
        woken?.clear()
        return .woken
      }
      if count < 0 && errno != EINTR {
        throw CacheError.posixError("cannot read URL list \(name)", errno)
      }
      if !wait || Task.isCancelled { return .nothing }
    }
  }

  /// Reads up to 64 KiB more (into `chunk`, allocated once: a zeroed 64 KiB a read was a
  /// tenth of the time of a `fetch -i` hit).
  private func fill(from descriptor: Int32) throws {
    buffer.removeFirst(start)
    start = 0
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { return }
    guard count >= 0 else { throw CacheError.posixError("cannot read URL list \(name)", errno) }
    drained = count < chunk.count && !isRegularFile
    if count == 0 { finished = true } else { buffer += chunk[..<count] }
  }
}

extension CacheError {
  /// A failed read of the URL list.
  fileprivate static func posixError(_ what: String, _ code: Int32) -> CacheError {
    CacheError(.localIO, "\(what): \(String(cString: strerror(code)))")
  }
}

/// `line` without leading and trailing spaces and tabs (cheaper than Foundation's trimming on
/// millions of lines).
func trimmingBlanks(_ line: String) -> String {
  let utf8 = line.utf8
  let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
  guard let first = utf8.first, let last = utf8.last, isBlank(first) || isBlank(last) else {
    return line
  }
  guard let start = utf8.firstIndex(where: { !isBlank($0) }),
    let end = utf8.lastIndex(where: { !isBlank($0) })
  else { return "" }
  return String(line[start...end])
}
