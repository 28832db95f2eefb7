/// SplitMix64, a tiny pseudo-random generator whose output is the same on every platform, so
/// generated data is byte-identical for a seed (Swift's `SystemRandomNumberGenerator` is not seedable
/// and the standard library's distributions may change between releases).
///
/// Source: G. L. Steele Jr., D. Lea, C. H. Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014; constants as in S. Vigna's reference splitmix64.c (prng.di.unimi.it). Passes BigCrush;
/// not cryptographic.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    public init(seed: UInt64) { state = seed }

    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits (exact in IEEE-754 binary64, so platform-independent).
    @inlinable public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in 0..<n without modulo bias (Lemire's multiply-shift with rejection, ACM TOMACS 2019).
    @inlinable public mutating func below(_ n: UInt64) -> UInt64 {
        precondition(n > 0)
        var m = next().multipliedFullWidth(by: n)
        if m.low < n {
            let t = (0 &- n) % n
            while m.low < t { m = next().multipliedFullWidth(by: n) }
        }
        return m.high
    }
}
