/// A small deterministic random generator (SplitMix64): the same seed gives the same
/// sequence, so a failing stress run or test can be replayed.
package struct SplitMix: RandomNumberGenerator {
  /// The generator's state; the seed to begin with.
  package var state: UInt64

  /// A generator seeded with `seed`.
  package init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
