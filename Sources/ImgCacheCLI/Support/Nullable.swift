/// An optional field that JSON output always carries: `null` when there is no value, so every
/// record of a kind has the same fields.
@propertyWrapper
struct Nullable<Value: Codable & Equatable>: Codable, Equatable {
  var wrappedValue: Value?

  init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}

extension KeyedDecodingContainer {
  /// A ``Nullable`` field that is absent decodes as nil.
  func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
    try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
  }
}
