import FoundationEssentials
import Glibc
import Synchronization

/// The URL list to run again (`prefetch --save-failed`), written as the run goes: each failure
/// after a `#` line that says why, each URL disallowed by robots as a `# disallowed:` line
/// and each body refused by its table's digest as a `# digest_mismatch:` line (listed, not
/// run again: a plain list has no digest to check; the table is), then the URLs never finished (a cancelled run's, and the
/// input it left unread). A run of a hundred million URLs keeps none of them in memory. The
/// file appears whole or not at all: it is written beside its place and renamed there by
/// ``finish()``. A prefetch reads it back as it is (comments skipped).
///
/// Lock rule: `state` guards the descriptor, the lines gathered and the first error; `write(2)`
/// runs inside it (a system call, no callback), so lines never interleave.
public final class RetryList: Sendable {
  /// Where the list goes.
  public let path: String
  private let temporary: String
  private let state: Mutex<State>

  private struct State {
    var descriptor: Int32
    var error: CacheError?
    /// Lines not yet written: one `write(2)` per 64 KiB, not per line (a cancelled run reads
    /// its unread input into the list within the grace before it exits).
    var buffer = [UInt8]()
  }

  /// How much is gathered before a write.
  private static let bufferSize = 64 << 10

  /// Starts the list that ``finish()`` puts at `path`; throws `.localIO` naming the file when
  /// its folder cannot be written.
  public init(path: String) throws {
    self.path = path
    do {
      let (temporary, descriptor) = try FileIO.makeTemporaryFile(
        in: FileIO.folder(of: path), prefix: "retry-\(ProcessTag.current)-")
      self.temporary = temporary
      state = Mutex(State(descriptor: descriptor))
    } catch {
      throw CacheError.io("cannot write \(path)", error)
    }
  }

  deinit {
    let descriptor = state.withLock { $0.descriptor }
    if descriptor >= 0 {
      close(descriptor)
      unlink(temporary)
    }
  }

  /// Adds a failure: a `#` line with its message, then the URL; a body refused by its row's
  /// digest as a comment alone (run from a plain list, it would be stored unchecked).
  func add(_ url: String, failure: CacheError) {
    if failure.kind == .digestMismatch {
      append("# digest_mismatch: \(failure.message)\n")
    } else {
      append("# \(failure.message)\n\(url)\n")
    }
  }

  /// Adds a URL robots.txt or `X-Robots-Tag` refused, as a comment (a rerun does not ask for
  /// it): `# disallowed: <url>: <why>`.
  func add(disallowed: CacheError) { append("# disallowed: \(disallowed.message)\n") }

  /// Adds a URL the run did not finish.
  func add(unfinished url: String) { append(url + "\n") }

  private func append(_ text: String) {
    state.withLock { state in
      guard state.descriptor >= 0, state.error == nil else { return }
      state.buffer.append(contentsOf: text.utf8)
      if state.buffer.count >= Self.bufferSize { Self.flush(&state, path: path) }
    }
  }

  /// Writes what `state` gathered.
  private static func flush(_ state: inout State, path: String) {
    guard !state.buffer.isEmpty, state.error == nil else { return }
    do {
      try state.buffer.withUnsafeBytes {
        try FileIO.writeAll(state.descriptor, $0, display: path)
      }
    } catch {
      state.error = CacheError.io("cannot write \(path)", error)
    }
    state.buffer.removeAll(keepingCapacity: true)
  }

  /// Puts the list in its place; throws `.localIO` naming the file when it could not be
  /// written (then nothing replaces what was there).
  public func finish() throws {
    let (descriptor, failure) = state.withLock { state in
      defer { state.descriptor = -1 }
      if state.descriptor >= 0 { Self.flush(&state, path: path) }
      return (state.descriptor, state.error)
    }
    guard descriptor >= 0 else { return }
    close(descriptor)
    if let failure {
      unlink(temporary)
      throw failure
    }
    do { try FileIO.rename(temporary, to: path) } catch {
      unlink(temporary)
      throw CacheError.io("cannot write \(path)", error)
    }
  }
}
