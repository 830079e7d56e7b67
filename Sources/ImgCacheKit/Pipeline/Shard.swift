import FoundationEssentials

/// One shard of a URL list split among N machines without a coordinator (`prefetch --shard
/// K/N`: Kubernetes Indexed Jobs, Slurm arrays, `parallel --sshlogin`): a URL belongs to shard
/// K when the first 8 bytes of its cache key's MD5, read as a big-endian unsigned integer, are
/// K modulo N. Every machine given the same list and its own K takes a disjoint part, and the N
/// parts cover the list; the key (not the URL) decides, so the URLs of one key go together.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// This shard's number, from 0 to ``count`` − 1.
  public let index: Int
  /// How many shards the list is split into.
  public let count: Int

  /// The most shards a list is split into.
  public static let maxCount = 1_000_000

  /// The shard `text` names (`K/N`); `.invalidInput` naming `--shard` otherwise.
  public init(parsing text: String) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
      let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= Self.maxCount,
      index >= 0, index < count
    else {
      throw CacheError(
        .invalidInput,
        "--shard '\(text.containsControlCharacters ? "?" : text)': expected K/N with N from 1 "
          + "to \(Self.maxCount) and K from 0 to N-1, like 0/4")
    }
    (self.index, self.count) = (index, count)
  }

  /// Whether the URL with cache key `key` belongs to this shard.
  public func contains(key: String) -> Bool {
    Int(UInt64(bitPattern: KeyDigest(key: key).high) % UInt64(count)) == index
  }

  public var description: String { "\(index)/\(count)" }
}
