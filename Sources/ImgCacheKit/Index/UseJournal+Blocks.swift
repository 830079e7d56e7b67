import FoundationEssentials
import ImgCacheUntrusted

/// The journal's blocks, written and read (``UseJournal``): the one place its text is made
/// and the one place it is trusted back.
extension UseJournal {
  /// The block of `pending`'s uses and counts; nil when it holds neither.
  static func block(of pending: PendingWrites) -> String? {
    guard !pending.uses.isEmpty || !pending.counts.isEmpty else { return nil }
    var text = "\n+\n"
    for use in pending.uses.values {
      text += "u \(use.digest.hex) \(use.time) \(use.count)\n"
    }
    for (counter, amount) in pending.counts {
      text += "c \(counter.rawValue) \(amount)\n"
    }
    return text + ".\n"
  }

  /// The uses and counts of the whole blocks in `bytes`, each use's time no later than `now`.
  /// Anything else — a torn block, a line that is not one of a block's, a number out of
  /// bounds — is dropped with the block it is in; nothing traps.
  package static func parse(_ bytes: [UInt8], now: Double) -> PendingWrites {
    var taken = PendingWrites()
    var block: PendingWrites?
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
      switch line.first {
      case UInt8(ascii: "+") where line.count == 1: block = PendingWrites()
      case UInt8(ascii: "."):
        if line.count == 1, let whole = block { taken.merge(whole) }
        block = nil
      default:
        guard var current = block, line.count <= maxLine, add(line, to: &current, now: now)
        else {
          block = nil
          continue
        }
        block = current
      }
    }
    taken.oldestUse = nil
    return taken
  }

  /// The longest line of a block imgcache writes (a use's is about 80 bytes).
  static let maxLine = 128

  /// Adds one line of a block to `block`; false when it is not one.
  private static func add(_ line: ArraySlice<UInt8>, to block: inout PendingWrites, now: Double)
    -> Bool
  {
    let fields = line.split(
      separator: UInt8(ascii: " "), maxSplits: 4, omittingEmptySubsequences: false)
    let text = fields.map { String(decoding: $0, as: UTF8.self) }
    switch (text.first, text.count) {
    case ("u", 4):
      guard let digest = KeyDigest(hex: text[1]), text[1].utf8.count == 32,
        let time = Double(text[2]), time.isFinite, time >= 0,
        let count = amount(text[3]), count > 0
      else { return false }
      block.addUse(digest: digest, time: min(time, now), count: count)
      return true
    case ("c", 3):
      guard let counter = Counter(rawValue: text[1]), let amount = amount(text[2]) else {
        return false
      }
      block.add(counts: [counter: amount])
      return true
    default: return false
    }
  }

  /// A count or amount as imgcache writes them: decimal digits, at most ``maxAmount``.
  private static func amount(_ text: String) -> Int64? {
    guard let value = Checked.digits(text), value <= maxAmount else { return nil }
    return value
  }
}

extension PendingWrites {
  /// Adds `count` uses of the entry of `digest`, the latest at `time` (a journal's: keyed by
  /// the digest, which is all that finds the entry).
  mutating func addUse(digest: KeyDigest, time: Double, count: Int64) {
    let key = digest.hex
    guard uses.count < Self.maxWaiting || uses[key] != nil else { return }
    var use = uses[key] ?? Use(time: time, count: 0, digest: digest)
    use.time = max(use.time, time)
    use.count += count
    uses[key] = use
  }
}
