/// Statements over a batch of values (`key IN (?, …)`, `VALUES (?, ?, ?), …`) padded to a
/// power of two, so that nine cached statements serve every batch of up to 256.
enum PaddedBatch {
  /// The most values one statement takes.
  static let limit = 256

  /// The padded size of a batch of `count`: the least power of two not below it.
  static func size(for count: Int) -> Int {
    var size = 1
    while size < count { size *= 2 }
    return size
  }

  /// `group` `count` times, comma-separated: `?, ?` or `(?, ?, ?), (?, ?, ?)`.
  static func list(of group: String, count: Int) -> String {
    repeatElement(group, count: count).joined(separator: ", ")
  }
}
