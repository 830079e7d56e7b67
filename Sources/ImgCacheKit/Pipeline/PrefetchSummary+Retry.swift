import Foundation

extension PrefetchSummary {
  /// The URL list to run again (`--save-failed`): each failure after a `#` line that says why,
  /// then the URLs never finished; empty when everything succeeded. A prefetch reads it back
  /// as it is (comments skipped).
  public var retryList: String {
    let lines = failures.map { "# \($0.error.message)\n\($0.url)" } + unfinished
    return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
  }

  /// Writes ``retryList`` to `path` whole or not at all (a temporary file beside it, then a
  /// rename). Throws `.localIO` naming the file.
  public func saveRetryList(to path: String) throws {
    do {
      try FileIO.writeAtomically(Data(retryList.utf8), to: path)
    } catch {
      throw CacheError.io("cannot write \(path)", error)
    }
  }
}

extension FetchResult {
  /// Deletes the temporary body of a response that was not cached (`no-store`), once it was
  /// delivered or is not wanted; nothing for any other result.
  public func discardUncachedBody() {
    if case .success(.notStored(let body)) = outcome { unlink(body) }
  }
}
