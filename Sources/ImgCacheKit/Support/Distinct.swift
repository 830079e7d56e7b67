extension Array where Element: Hashable {
  /// The elements, each once, in their order. Inlinable: the layers above call it on every
  /// batch of keys, and a generic body from another module runs unspecialized there.
  @inlinable package func distinct() -> [Element] {
    guard count > 1 else { return self }
    var seen = Set<Element>(minimumCapacity: count)
    return filter { seen.insert($0).inserted }
  }
}
