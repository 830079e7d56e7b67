import FoundationEssentials

/// An optional field that JSON output always carries: `null` when there is no value, so every
/// record of a kind has the same fields. Every record with such fields uses it (none writes its
/// nulls by hand).
@propertyWrapper
public struct Nullable<Value: Codable & Equatable>: Codable, Equatable {
  public var wrappedValue: Value?

  public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}

extension Nullable: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
  /// A ``Nullable`` field that is absent decodes as nil.
  public func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value>
  {
    try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
  }
}
