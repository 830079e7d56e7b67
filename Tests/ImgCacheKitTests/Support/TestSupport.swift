import Foundation
import Testing

@testable import ImgCacheKit

/// A fresh directory under the system temp folder, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
  let url: URL
  var path: String { url.path }

  init(_ label: String = "imgcache-test") {
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    url = base
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `bytes` to `name` inside the directory and returns its path.
  @discardableResult
  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = url.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
  private let lock = NSLock()
  private var current: Date

  init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

  var now: Date {
    lock.lock()
    defer { lock.unlock() }
    return current
  }

  func advance(_ seconds: TimeInterval) {
    lock.lock()
    current += seconds
    lock.unlock()
  }

  var function: @Sendable () -> Date { { self.now } }
}

/// The repository root, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// Real images of every format, made once per test process by `Tests/Fixtures/make-images.sh`.
enum Fixtures {
  struct Image: Sendable {
    let path: String
    let format: ImageFormat
    let width: Int?
    let height: Int?
  }

  static let directory = TemporaryDirectory("imgcache-fixtures")

  static let images: [Image] = {
    let script = repositoryRoot.appendingPathComponent("Tests/Fixtures/make-images.sh").path
    let output = run("/bin/sh", [script, directory.path])
    return output.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ").map(String.init)
      guard parts.count == 4, let format = ImageFormat(rawValue: parts[1]) else { return nil }
      return Image(
        path: directory.path + "/" + parts[0], format: format, width: Int(parts[2]),
        height: Int(parts[3]))
    }
  }()

  static func image(_ name: String) -> Image {
    guard let image = images.first(where: { $0.path.hasSuffix("/" + name) }) else {
      fatalError("fixture \(name) was not made; see Tests/Fixtures/make-images.sh")
    }
    return image
  }

  static func bytes(_ name: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: image(name).path)))) ?? []
  }
}

/// Runs a program to completion and returns its standard output; fails the test on error.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let pipe = Pipe()
  process.standardOutput = pipe
  do { try process.run() } catch {
    Issue.record("cannot run \(program): \(error)")
    return ""
  }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  if process.terminationStatus != 0 {
    Issue.record("\(program) \(arguments) exited with \(process.terminationStatus)")
  }
  return String(decoding: data, as: UTF8.self)
}

/// Writes `bytes` into a new temporary file of `cache` and returns its path.
func temporaryBody(_ cache: DiskCache, _ bytes: [UInt8]) throws -> String {
  let (path, fd) = try cache.makeTemporaryFile()
  defer { close(fd) }
  let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  #expect(written == bytes.count)
  return path
}

/// Stores `bytes` under `url` (its key) and returns the entry.
@discardableResult
func store(_ cache: DiskCache, _ url: String, _ bytes: [UInt8] = Array("body".utf8)) throws
  -> CacheEntry
{
  try cache.store(
    try temporaryBody(cache, bytes), key: CacheKey.key(for: url), url: url,
    metadata: EntryMetadata())
}
