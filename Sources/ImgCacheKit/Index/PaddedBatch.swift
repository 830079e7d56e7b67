/// Statements over a batch of values (`key IN (?, …)`, `VALUES (?, ?, ?), …`) padded to a
/// power of two, so that nine cached statements serve every batch of up to 256.
enum PaddedBatch {
  /// The most values one statement takes.
  static let limit = 256

  /// `keys` in chunks of at most ``limit``, each padded to its size (``size(for:)``) by
  /// repeating its last key: an `IN (…)` list then finds the same row once.
  static func chunks(of keys: [String]) -> [(size: Int, keys: [String])] {
    stride(from: 0, to: keys.count, by: limit).map { start in
      let chunk = keys[start..<min(start + limit, keys.count)]
      let size = size(for: chunk.count)
      return (
        size, Array(chunk) + repeatElement(chunk[chunk.endIndex - 1], count: size - chunk.count)
      )
    }
  }

  /// The padded size of a batch of `count`: the least power of two not below it.
  static func size(for count: Int) -> Int {
    var size = 1
    while size < count { size *= 2 }
    return size
  }

  /// `group` `count` times, comma-separated: `?, ?` or `(?, ?, ?), (?, ?, ?)`. The padded
  /// sizes of the two groups the index uses are built once: building a list of 256 for every
  /// batch took 730,000 instructions with `joined(separator:)`, 175,000 with appends.
  static func list(of group: String, count: Int) -> String {
    // One (a hit's lookup, its use): the group itself, without building the lists of the
    // other sizes (760,000 instructions, a fiftieth of a `fetch` hit).
    if count == 1 { return group }
    if count > 0 && count <= limit && count.nonzeroBitCount == 1, let lists = prebuilt[group] {
      return lists[count.trailingZeroBitCount]
    }
    return build(group, count: count)
  }

  /// The lists of `?` and of `(?, ?, ?)` for 1, 2, 4 … ``limit``.
  private static let prebuilt: [String: [String]] = Dictionary(
    uniqueKeysWithValues: ["?", "(?, ?, ?)"].map { group in
      (group, (0...limit.trailingZeroBitCount).map { build(group, count: 1 << $0) })
    })

  private static func build(_ group: String, count: Int) -> String {
    var list = group
    for _ in 1..<max(count, 1) {
      list += ", "
      list += group
    }
    return list
  }
}
