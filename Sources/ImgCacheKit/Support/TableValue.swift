import FoundationEssentials

/// A value of a table's cell: text from CSV and TSV, any JSON value from JSON lines. Written
/// back as the JSON it was (a saved column in a sample's record).
public indirect enum TableValue: Sendable, Equatable, Codable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([TableValue])
  case object([String: TableValue])

  public init(from decoder: any Decoder) throws {
    if var items = try? decoder.unkeyedContainer() {
      var values = [TableValue]()
      while !items.isAtEnd { values.append(try items.decode(TableValue.self)) }
      self = .array(values)
      return
    }
    if let object = try? decoder.container(keyedBy: TableKey.self) {
      var values = [String: TableValue]()
      for key in object.allKeys {
        values[key.stringValue] = try object.decode(Self.self, forKey: key)
      }
      self = .object(values)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let value = try? single.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? single.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? single.decode(Double.self) {
      self = .number(value)
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let value): try value.encode(to: encoder)
    case .integer(let value): try value.encode(to: encoder)
    case .number(let value):
      // JSON has no NaN or infinity; a table cannot hold them either.
      var single = encoder.singleValueContainer()
      if value.isFinite { try single.encode(value) } else { try single.encodeNil() }
    case .string(let value): try value.encode(to: encoder)
    case .array(let values): try values.encode(to: encoder)
    case .object(let values):
      // Through a single value, as a dictionary: its keys are the table's, never converted by
      // an encoder's key strategy (the records' snake case).
      var single = encoder.singleValueContainer()
      try single.encode(values)
    }
  }

  /// The value as a caption or a URL: a string as it is, a number or boolean as JSON writes
  /// it; nil for null, an array or an object.
  package var text: String? {
    switch self {
    case .string(let value): return value
    case .integer(let value): return String(value)
    case .number(let value): return value.isFinite ? String(value) : nil
    case .bool(let value): return value ? "true" : "false"
    case .null, .array, .object: return nil
    }
  }
}

/// A JSON object's key, any string.
package struct TableKey: CodingKey {
  package let stringValue: String
  package var intValue: Int? { nil }

  package init(_ name: String) { stringValue = name }
  package init?(stringValue: String) { self.stringValue = stringValue }
  package init?(intValue: Int) { nil }
}
