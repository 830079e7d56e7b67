import Dispatch
import FoundationEssentials
import Glibc

/// Where a transfer's body goes as it arrives: in memory while it fits ``memoryLimit`` (hashed
/// where it was received, handed over without a file), else a temporary file (or the partial
/// body of a resume) and the hashing queue.
extension CurlTransfer {
  /// Takes a chunk of the body from libcurl's write callback; returns the bytes taken (fewer
  /// stop the transfer, with ``abortReason`` saying why).
  func receive(_ data: UnsafeMutablePointer<CChar>, _ given: Int) -> Int {
    lastActivity = DispatchTime.now().uptimeNanoseconds
    var length = given
    if !(200..<300).contains(status) {
      // An error page is not worth downloading: stop at its first byte.
      abortReason = Self.statusError(status, url: request.url)
      return 0
    }
    do {
      // First: a resumed body counts (and hashes) the bytes already kept before these.
      let fd = try openBody()
      if let limit = request.truncatesAt, Int64(length) > limit - bytes {
        // What fits is kept, then the transfer stops: the body is cut there.
        length = Int(max(0, limit - bytes))
        truncated = true
      }
      bytes += Int64(length)
      if bytes > maxBodySize {
        abortReason = CacheError(
          .protocolError, "body exceeds the limit of \(maxBodySize) bytes", url: request.url)
        return 0
      }
      pendingHash.append(
        UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
      if let fd {
        try FileIO.writeAll(fd, data, count: length, display: file?.path ?? "")
      } else if pendingHash.count >= Self.memoryLimit {
        // Too large for memory after all: into a file, what came so far included.
        let spilled = try openTemporaryFile()
        try pendingHash.withUnsafeBytes {
          try FileIO.writeAll(spilled, $0, display: file?.path ?? "")
        }
        bodyInMemory = false
      }
      if pendingHash.count >= Self.memoryLimit { hashPending() }
      return truncated ? 0 : length
    } catch let error as CacheError where error.kind == .protocolError {
      abortReason = error
      return 0
    } catch {
      abortReason = CacheError.io("cannot write the body", error, url: request.url)
      return 0
    }
  }

  /// The most bytes a body keeps in memory (and hashes where it was received); a larger body
  /// streams into a file and through the hashing queue.
  static let memoryLimit = 262_144

  /// Where received bytes go: the body file, or nil while the body stays in memory. At the
  /// first byte, a body to keep for a resume (or to append to one) gets its file; any other
  /// starts in memory.
  func openBody() throws -> Int32? {
    if let file { return file.descriptor }
    if bodyInMemory { return nil }
    if let opened = try openResumableFile() {
      file = opened
      return opened.descriptor
    }
    bodyInMemory = true
    return nil
  }

  /// Creates the body's temporary file in the request's directory.
  private func openTemporaryFile() throws -> Int32 {
    let (path, descriptor) = try FileIO.makeTemporaryFile(
      in: request.temporaryDirectory, prefix: ProcessTag.partPrefix)
    file = (path: path, descriptor: descriptor)
    return descriptor
  }

  /// Closes and deletes the temporary file, if any; a partial body kept for a resumed
  /// download (at least the minimum size) is only closed.
  func discardFile() {
    guard let file else { return }
    close(file.descriptor)
    if !keepsPartialBody { unlink(file.path) }
    self.file = nil
  }

  /// Hands the bytes received so far to the hashing queue, which runs on another core while
  /// the loop goes on receiving.
  func hashPending() {
    let chunk = pendingHash
    pendingHash = Data()
    hashInFlight = true
    SHA256Stream.queue.async { [hasher] in chunk.withUnsafeBytes { hasher.update($0) } }
  }

  /// The SHA-256 of the whole body, once the hashing queue has caught up, and the body itself
  /// when it was small enough to stay in memory whole (nil otherwise). A small body is hashed
  /// here, on the loop: a round trip to the queue would cost more than the hashing.
  func finishHash() -> (sha256: String, body: Data?) {
    guard hashInFlight else {
      let whole = bytes == Int64(pendingHash.count) ? pendingHash : nil
      pendingHash.withUnsafeBytes { hasher.update($0) }
      pendingHash = Data()
      return (hasher.finish(), whole)
    }
    hashPending()
    hashInFlight = false
    return (SHA256Stream.queue.sync { hasher.finish() }, nil)
  }
}
