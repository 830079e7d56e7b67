extension Array where Element: Hashable {
  /// The elements, each once, in their order.
  package func distinct() -> [Element] {
    guard count > 1 else { return self }
    var seen = Set<Element>(minimumCapacity: count)
    return filter { seen.insert($0).inserted }
  }
}
