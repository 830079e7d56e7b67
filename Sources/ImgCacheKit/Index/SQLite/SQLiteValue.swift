import FoundationEssentials

/// A value SQLite stores: its five storage classes (docs/architecture.md, Start-up).
package enum SQLiteValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob(Data)
}

/// A Swift value that goes into SQLite and comes back out.
package protocol SQLiteConvertible {
  /// The value as SQLite stores it.
  var sqliteValue: SQLiteValue { get }
  /// The value read back, or nil when `value` is not one (NULL, another storage class).
  init?(sqliteValue value: SQLiteValue)
}

extension Int64: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .integer(self) }
  package init?(sqliteValue value: SQLiteValue) {
    switch value {
    case .integer(let number): self = number
    case .real(let number): self.init(exactly: number)
    default: return nil
    }
  }
}

extension Int: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
  package init?(sqliteValue value: SQLiteValue) {
    guard let number = Int64(sqliteValue: value) else { return nil }
    self.init(exactly: number)
  }
}

extension Int32: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
  package init?(sqliteValue value: SQLiteValue) {
    guard let number = Int64(sqliteValue: value) else { return nil }
    self.init(exactly: number)
  }
}

extension Double: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .real(self) }
  package init?(sqliteValue value: SQLiteValue) {
    switch value {
    case .real(let number): self = number
    case .integer(let number): self = Double(number)
    default: return nil
    }
  }
}

extension Bool: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
  package init?(sqliteValue value: SQLiteValue) {
    guard let number = Int64(sqliteValue: value) else { return nil }
    self = number != 0
  }
}

extension String: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .text(self) }
  package init?(sqliteValue value: SQLiteValue) {
    switch value {
    case .text(let text): self = text
    case .blob(let data): self.init(validating: data, as: UTF8.self)
    default: return nil
    }
  }
}

extension Data: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { .blob(self) }
  package init?(sqliteValue value: SQLiteValue) {
    switch value {
    case .blob(let data): self = data
    case .text(let text): self = Data(text.utf8)
    default: return nil
    }
  }
}

extension SQLiteValue: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { self }
  package init?(sqliteValue value: SQLiteValue) { self = value }
}

extension Optional: SQLiteConvertible where Wrapped: SQLiteConvertible {
  package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
  /// NULL is nil; any other value must convert.
  package init?(sqliteValue value: SQLiteValue) {
    if value == .null {
      self = .none
      return
    }
    guard let wrapped = Wrapped(sqliteValue: value) else { return nil }
    self = .some(wrapped)
  }
}
