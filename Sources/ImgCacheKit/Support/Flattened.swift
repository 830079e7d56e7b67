/// Two records written as one JSON object: `own`'s fields, then `beside`'s (when there is
/// one) at the same level. The records' one encoder written by hand.
public struct Flattened<Own: Encodable, Beside: Encodable>: Encodable {
  /// The record whose fields come first.
  public var own: Own
  /// The record whose fields go beside them, if any.
  public var beside: Beside?

  /// `own`'s fields with `beside`'s.
  public init(own: Own, beside: Beside?) { (self.own, self.beside) = (own, beside) }

  public func encode(to encoder: any Encoder) throws {
    try own.encode(to: encoder)
    try beside?.encode(to: encoder)
  }
}
