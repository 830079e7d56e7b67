import FoundationEssentials

/// The check of a body against its table row's digest (`--verify-hash`; docs/design.md,
/// Tables): made once per fetch, on the original's body, before it is stored (a download) or
/// before anything is made of it (a stored copy). A body that differs is refused for the row:
/// a download is deleted, never stored; a stored copy stays for other tables and is not served
/// for this row.
extension FetchMachine {
  /// Where the digest of a fetch's original comes from.
  enum DigestSource: Sendable, Equatable {
    /// A body's file.
    case file(String)
    /// The original of the variant served: the SHA-256 its link records of the body it was
    /// made from (which outlives a discarded original, and comes with a remote variant), else
    /// the stored original's.
    case original(variant: String, original: String)
  }

  /// The action that checks the downloaded body of `pending`: decided at once from the
  /// SHA-256 taken while it streamed in, else the body's digest is made.
  static func checkDigest(
    _ fetch: inout Fetch, of pending: PendingStore, rules: Rules
  ) -> Action {
    guard let digest = fetch.notes?.digest else { return .store(pending) }
    return check(
      digest, recorded: pending.metadata.sha256, file: pending.temporaryPath, &fetch, rules)
  }

  /// The action that checks the original that served `outcome`: a variant found stored has its
  /// original read; a stored copy's recorded SHA-256 decides at once; an offline miss has no
  /// body to check.
  static func checkDigest(
    _ fetch: inout Fetch, of outcome: FetchOutcome, rules: Rules
  ) -> Action {
    guard let digest = fetch.notes?.digest else { return .settle }
    if let served = fetch.served {
      return .digest(
        .original(variant: served.key, original: served.originalKey), digest.algorithm)
    }
    guard let path = outcome.path ?? outcome.uncachedBody else {
      fetch.digestChecked = true
      return next(&fetch, rules: rules)
    }
    return check(digest, recorded: outcome.storedEntry?.sha256, file: path, &fetch, rules)
  }

  /// Decides at once from a `recorded` SHA-256 when `digest` is one; else has `file`'s made.
  private static func check(
    _ digest: ExpectedDigest, recorded: String?, file: String, _ fetch: inout Fetch,
    _ rules: Rules
  ) -> Action {
    if digest.algorithm == .sha256, let recorded {
      return digested(recorded, &fetch, rules: rules) ?? .settle
    }
    return .digest(.file(file), digest.algorithm)
  }

  /// The original's digest was made (`actual`; nil when its body could not be read): a match
  /// goes on; a difference refuses the body, deleting one not stored.
  static func digested(_ actual: String?, _ fetch: inout Fetch, rules: Rules) -> Action? {
    guard fetch.needsDigestCheck, let digest = fetch.notes?.digest else { return nil }
    let unstored: String?
    switch fetch.state {
    case .checked(_, let pending): unstored = pending.temporaryPath
    case .done(.success(let outcome)): unstored = outcome.uncachedBody
    default: return nil
    }
    fetch.digestChecked = true
    guard let error = digest.refusal(actual, ofOriginal: fetch.served != nil) else {
      return next(&fetch, rules: rules)
    }
    fetch.state = .done(.failure(error))
    return .refuse(body: unstored, error)
  }
}
