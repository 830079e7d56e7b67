import CZlib
import FoundationEssentials
import Glibc

/// Where a table's bytes come from: a file or standard input, read as they are or through
/// gzip. Reads block at most 100 ms at a time on a pipe, so a cancelled task stops waiting.
package protocol TableBytes: AnyObject {
  /// Fills `buffer` with the next bytes; returns how many, 0 at the end.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// The bytes of a file or of standard input (`-`).
package final class FileBytes: TableBytes {
  /// What messages call the input: its path, or "standard input".
  package let name: String
  private let descriptor: Int32
  private let isRegularFile: Bool

  /// Opens `path` (`-`: standard input); `.invalidInput` naming it when it cannot be read.
  package init(path: String) throws {
    var info = stat()
    if path == "-" {
      (name, descriptor) = ("standard input", STDIN_FILENO)
      isRegularFile = fstat(STDIN_FILENO, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
      return
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
      let reason = String(cString: strerror(fd >= 0 ? EISDIR : errno))
      if fd >= 0 { close(fd) }
      throw CacheError(.invalidInput, "cannot read table \(path): \(reason)")
    }
    (name, descriptor) = (path, fd)
    isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
  }

  deinit { if descriptor != STDIN_FILENO { close(descriptor) } }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      if !isRegularFile { try waitForInput() }
      let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
      if count >= 0 { return count }
      if errno == EINTR || errno == EAGAIN { continue }
      throw CacheError.posix("cannot read table", path: name)
    }
  }

  /// Polls a pipe until it has input (or its end); a cancelled task ends the input.
  private func waitForInput() throws {
    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    while poll(&poller, 1, 100) == 0 {
      if Task.isCancelled { throw CacheError(.cancelled, "cancelled") }
    }
  }
}

/// Bytes in memory (the fuzzer's input).
package final class MemoryBytes: TableBytes {
  private let bytes: [UInt8]
  private var position = 0

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, bytes.count - position)
    buffer.copyBytes(from: bytes[position..<position + count])
    position += count
    return count
  }
}

/// The bytes of a gzip stream (several members in a row too, as `cat a.gz b.gz` makes),
/// inflated by zlib as they are read.
package final class GzipBytes: TableBytes {
  private let source: any TableBytes
  private let name: String
  private let zlib: ZlibLibrary
  private let stream: UnsafeMutablePointer<z_stream>
  private var input = [UInt8](repeating: 0, count: 65_536)
  /// The part of `input` not yet inflated.
  private var pending = 0..<0
  private var ended = false

  /// Inflates what `source` (called `name` in messages) holds.
  package init(_ source: any TableBytes, name: String) throws {
    (self.source, self.name) = (source, name)
    zlib = try ZlibLibrary.loaded()
    // Made only once zlib is there; a failed start is ended and freed by deinit (every
    // property is set by then, so a throw runs it).
    stream = .allocate(capacity: 1)
    guard imgcache_inflate_init(zlib.api, stream) == Z_OK else {
      throw CacheError(.localIO, "cannot start zlib to read \(name)")
    }
  }

  deinit {
    imgcache_inflate_end(zlib.api, stream)
    stream.deallocate()
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count > 0
    else { return 0 }
    while !ended {
      if pending.isEmpty {
        guard try refill() else {
          if stream.pointee.total_in == 0 { return 0 }  // an empty file: no rows
          throw CacheError(.invalidInput, "\(name) ends in the middle of its gzip stream")
        }
      }
      let produced = try inflate(into: base, count: min(buffer.count, 1 << 30))
      if produced > 0 { return produced }
    }
    return 0
  }

  /// Reads the source's next bytes as input; false at its end.
  private func refill() throws -> Bool {
    let count = try input.withUnsafeMutableBytes { try source.read(into: $0) }
    pending = 0..<count
    return count > 0
  }

  /// One inflate step into `base`; returns the bytes produced.
  private func inflate(into base: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
    let status = input.withUnsafeMutableBufferPointer { bytes -> Int32 in
      stream.pointee.next_in = bytes.baseAddress.map { $0 + pending.lowerBound }
      stream.pointee.avail_in = UInt32(pending.count)
      stream.pointee.next_out = base
      stream.pointee.avail_out = UInt32(count)
      return imgcache_inflate(zlib.api, stream)
    }
    pending = (pending.upperBound - Int(stream.pointee.avail_in))..<pending.upperBound
    let produced = count - Int(stream.pointee.avail_out)
    switch status {
    case Z_OK, Z_BUF_ERROR: return produced
    case Z_STREAM_END:
      // Another member may follow (`cat a.gz b.gz`); the end of the source ends the stream.
      let more = try pending.isEmpty ? refill() : true
      if !more {
        ended = true
      } else {
        _ = imgcache_inflate_reset(zlib.api, stream)
      }
      return produced
    default:
      throw CacheError(.invalidInput, "\(name) is not valid gzip (zlib error \(status))")
    }
  }
}
