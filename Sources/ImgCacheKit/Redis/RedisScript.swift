/// A Lua script run by its SHA-1 (`EVALSHA`): its text crosses the network only when the
/// server does not know it yet (a first use, a restart, a `SCRIPT FLUSH`), through
/// `SCRIPT LOAD` (``RedisClient/run(_:keys:_:deadline:maxReply:)``).
package struct RedisScript: Sendable {
  /// The Lua text.
  package let source: String
  /// Its SHA-1 in lowercase hex, as Redis names it.
  package let sha: String

  /// The script `source`.
  package init(_ source: String) {
    self.source = source
    sha = SHA1.hex(of: source.utf8)
  }
}
