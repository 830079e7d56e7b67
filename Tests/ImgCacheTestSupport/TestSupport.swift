import Foundation
import ImgCacheKit
import Synchronization

/// A fresh directory under the system temp folder, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
  public let url: URL
  public var path: String { url.path }

  public init(_ label: String = "imgcache-test") {
    let base = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    url = base
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `bytes` to `name` inside the directory and returns its path.
  @discardableResult
  public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = url.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// A clock a test moves by hand.
public final class TestClock: @unchecked Sendable {
  private let lock = NSLock()
  private var current: Date

  public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

  public var now: Date {
    lock.lock()
    defer { lock.unlock() }
    return current
  }

  public func advance(_ seconds: TimeInterval) {
    lock.lock()
    current += seconds
    lock.unlock()
  }

  public var function: @Sendable () -> Date { { self.now } }
}

/// The repository root, found from this file's path.
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Real images of every format, made once per test process by `Tests/Fixtures/make-images.sh`.
public enum Fixtures {
  public struct Image: Sendable {
    public let path: String
    public let format: ImageFormat
    public let width: Int?
    public let height: Int?
  }

  public static let directory = TemporaryDirectory("imgcache-fixtures")

  public static let images: [Image] = {
    let script = repositoryRoot.appendingPathComponent("Tests/Fixtures/make-images.sh").path
    let output = run("/bin/sh", [script, directory.path]).stdout
    return output.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ").map(String.init)
      guard parts.count == 4, let format = ImageFormat(rawValue: parts[1]) else { return nil }
      return Image(
        path: directory.path + "/" + parts[0], format: format, width: Int(parts[2]),
        height: Int(parts[3]))
    }
  }()

  public static func image(_ name: String) -> Image {
    guard let image = images.first(where: { $0.path.hasSuffix("/" + name) }) else {
      fatalError("fixture \(name) was not made; see Tests/Fixtures/make-images.sh")
    }
    return image
  }

  public static func bytes(_ name: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: image(name).path)))) ?? []
  }
}

/// What a finished program printed and how it exited.
public struct ProcessOutput: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

/// Runs a program to completion, feeding it `input`, and returns what it printed.
@discardableResult
public func run(
  _ program: String, _ arguments: [String], environment: [String: String]? = nil,
  input: String? = nil
) -> ProcessOutput {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  let inPipe = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = inPipe
  do { try process.run() } catch {
    return ProcessOutput(status: -1, stdout: "", stderr: "cannot run \(program): \(error)")
  }
  let writer = Thread {
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
  }
  writer.start()
  let errData = Mutex(Data())
  let reader = Thread { errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
  reader.start()
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  while reader.isExecuting || !reader.isFinished { usleep(1_000) }
  let errBytes = errData.withLock { $0 }
  return ProcessOutput(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errBytes, as: UTF8.self))
}

/// Writes `bytes` into a new temporary file of `cache` and returns its path.
public func temporaryBody(_ cache: DiskCache, _ bytes: [UInt8]) throws -> String {
  let (path, fd) = try cache.makeTemporaryFile()
  defer { close(fd) }
  let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  guard written == bytes.count else { throw CacheError(.localIO, "short write") }
  return path
}

/// Stores `bytes` under `url` (its key) and returns the entry.
@discardableResult
public func store(_ cache: DiskCache, _ url: String, _ bytes: [UInt8] = Array("body".utf8)) throws
  -> CacheEntry
{
  try cache.store(
    try temporaryBody(cache, bytes), key: CacheKey.key(for: url), url: url,
    metadata: EntryMetadata())
}
