import FoundationEssentials
import Glibc

extension FetchResult {
  /// Deletes the temporary body of a response that was not cached (`no-store`), once it was
  /// delivered or is not wanted; nothing for any other result.
  public func discardUncachedBody() {
    if case .success(.notStored(let body)) = outcome { unlink(body) }
  }
}
