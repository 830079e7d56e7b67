import ArgumentParser
import Foundation
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

  /// The URLs, streamed.
  func stream() throws -> AnyIterator<String> { try URLInput.urls(arguments: urls, file: input) }
}

/// URL lists: one per line, blank lines and `#` comments skipped, read lazily so millions of
/// lines never sit in memory at once.
enum URLInput {
  /// The URLs of `arguments`, then of `file` (`-` is stdin), streamed.
  static func urls(arguments: [String], file: String?) throws -> AnyIterator<String> {
    var fromArguments = arguments.makeIterator()
    guard let file else { return AnyIterator { fromArguments.next() } }
    let handle: FileHandle
    if file == "-" {
      handle = .standardInput
    } else {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory),
        !isDirectory.boolValue,
        let opened = FileHandle(forReadingAtPath: file)
      else {
        let reason = String(cString: strerror(access(file, R_OK) == 0 ? EISDIR : errno))
        throw CacheError(.invalidInput, "cannot read URL list \(file): \(reason)")
      }
      handle = opened
    }
    var lines = LineReader(handle: handle)
    return AnyIterator {
      if let url = fromArguments.next() { return url }
      while let line = lines.next() {
        let trimmed = trimmingBlanks(line)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        return trimmed
      }
      return nil
    }
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

/// Lines of a file handle, read in 64 KiB chunks.
struct LineReader: IteratorProtocol {
  let handle: FileHandle
  private var buffer = [UInt8]()
  private var start = 0
  private var finished = false

  init(handle: FileHandle) { self.handle = handle }

  mutating func next() -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: 0x0A) {
        var line = buffer[start..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        start = newline + 1
        return String(decoding: line, as: UTF8.self)
      }
      if finished {
        guard start < buffer.count else { return nil }
        let line = String(decoding: buffer[start...], as: UTF8.self)
        start = buffer.count
        return line
      }
      buffer.removeFirst(start)
      start = 0
      let chunk = handle.readData(ofLength: 65_536)
      if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
    }
  }
}
