import Foundation

/// CPython 3.11's `random.Random`, bit for bit, for the methods the shared benchmark workload uses
/// (`SharedWorkload`): the same seed gives the same numbers as Python, so the workload can be
/// rebuilt from this repository alone and still match files written by `make_dataset.py`.
///
/// Sources (CPython 3.11):
/// - `Modules/_randommodule.c`: the generator is MT19937 (M. Matsumoto, T. Nishimura, "Mersenne
///   Twister: a 623-dimensionally equidistributed uniform pseudo-random number generator", ACM TOMACS
///   8(1), 1998; reference code mt19937ar.c of 2002-01-26), seeded from an int by `init_by_array` with
///   the 32-bit words of its absolute value, least significant first (`random_seed`); `random()` is
///   the reference `genrand_res53`; `getrandbits(k)` fills 32-bit words from the least significant,
///   the last one keeping its top bits.
/// - `Lib/random.py`: `_randbelow_with_getrandbits`, `randrange`, `choice`, `uniform`, `choices`
///   (cumulative weights by `itertools.accumulate`, `bisect_right`) and `gauss` (Box–Muller with one
///   cached value, so the order of calls matters).
///
/// `gauss` uses the C library's `log`, `cos` and `sin`, as Python's `math` does: results match
/// Python's on the same C library (glibc here); elsewhere its last bit may differ.
public struct PythonRandom: Sendable {
    static let n = 624, m = 397
    /// The 624 words of MT19937's state.
    var state: [UInt32]
    /// Next word of `state` to temper; `n` means the state must be regenerated first.
    var index: Int
    /// `gauss`'s second value of its last pair (Python's `gauss_next`).
    var gaussNext: Double?

    /// As `random.Random(seed)`: the sign of `seed` is ignored, as in Python.
    public init(seed: Int) {
        let magnitude = seed.magnitude
        let key =
            magnitude >> 32 == 0
            ? [UInt32(magnitude)] : [UInt32(truncatingIfNeeded: magnitude), UInt32(magnitude >> 32)]
        self.init(key: key)
    }

    /// MT19937's `init_by_array` (mt19937ar.c), which CPython's `random_seed` calls.
    init(key: [UInt32]) {
        let n = Self.n
        state = [UInt32](repeating: 0, count: n)
        state[0] = 19_650_218  // init_genrand(19650218)
        for i in 1..<n {
            state[i] = 1_812_433_253 &* (state[i - 1] ^ (state[i - 1] >> 30)) &+ UInt32(i)
        }
        var i = 1
        var j = 0
        for _ in 0..<max(n, key.count) {
            state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) &* 1_664_525)) &+ key[j] &+ UInt32(j)
            i += 1
            j += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
            if j >= key.count { j = 0 }
        }
        for _ in 0..<(n - 1) {
            state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) &* 1_566_083_941)) &- UInt32(i)
            i += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
        }
        state[0] = 0x8000_0000
        index = n
    }

    /// The next 32 random bits (`genrand_uint32`).
    public mutating func nextUInt32() -> UInt32 {
        if index >= Self.n { twist() }
        var y = state[index]
        index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C_5680
        y ^= (y << 15) & 0xEFC6_0000
        y ^= y >> 18
        return y
    }

    /// Regenerates all 624 words of the state at once.
    mutating func twist() {
        let n = Self.n
        let m = Self.m
        for k in 0..<n {
            let y = (state[k] & 0x8000_0000) | (state[(k + 1) % n] & 0x7FFF_FFFF)
            state[k] = state[(k + m) % n] ^ (y >> 1) ^ (y & 1 == 0 ? 0 : 0x9908_B0DF)
        }
        index = 0
    }

    /// `random()`: uniform in [0, 1) with 53 random bits, 27 from one word and 26 from the next.
    public mutating func random() -> Double {
        let a = nextUInt32() >> 5
        let b = nextUInt32() >> 6
        return (Double(a) * 67_108_864.0 + Double(b)) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for 0 ≤ k ≤ 64.
    public mutating func getrandbits(_ k: Int) -> UInt64 {
        precondition((0...64).contains(k), "getrandbits: k must be in 0...64")
        if k == 0 { return 0 }
        if k <= 32 { return UInt64(nextUInt32() >> (32 - k)) }
        let low = UInt64(nextUInt32())
        return low | UInt64(nextUInt32() >> (64 - k)) << 32
    }

    /// `_randbelow(n)`: uniform in 0..<n, by rejecting draws of `n.bit_length()` bits that are ≥ n.
    public mutating func randbelow(_ n: Int) -> Int {
        precondition(n > 0, "randbelow: n must be positive")
        let k = Int.bitWidth - n.leadingZeroBitCount
        var r = getrandbits(k)
        while r >= UInt64(n) { r = getrandbits(k) }
        return Int(r)
    }

    /// `randrange(start, stop)`: uniform in start..<stop.
    public mutating func randrange(_ start: Int, _ stop: Int) -> Int {
        precondition(start < stop, "randrange: empty range")
        return start + randbelow(stop - start)
    }

    /// `choice(seq)`.
    public mutating func choice<C: RandomAccessCollection>(_ items: C) -> C.Element {
        precondition(!items.isEmpty, "choice: empty sequence")
        return items[items.index(items.startIndex, offsetBy: randbelow(items.count))]
    }

    /// `uniform(a, b)`: `a + (b - a) * random()`.
    public mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * random()
    }

    /// `gauss(mu, sigma)`: each pair of `random()` calls gives two normal values; the second is kept
    /// for the next call.
    public mutating func gauss(mu: Double = 0, sigma: Double = 1) -> Double {
        if let z = gaussNext {
            gaussNext = nil
            return mu + z * sigma
        }
        let x2pi = random() * (2 * Double.pi)
        let g2rad = (-2.0 * log(1.0 - random())).squareRoot()
        let z = cos(x2pi) * g2rad
        gaussNext = sin(x2pi) * g2rad
        return mu + z * sigma
    }

    /// Python's `list(itertools.accumulate(weights))`: running sums, left to right.
    public static func cumulativeWeights(_ weights: [Double]) -> [Double] {
        var sum = 0.0
        return weights.map {
            sum += $0
            return sum
        }
    }

    /// The index one draw of `choices(population, cum_weights=cumulativeWeights)` picks:
    /// `bisect_right(cum_weights, random() * total, 0, n - 1)`. `choices(…, k=k)` is k such draws.
    public mutating func weightedIndex(cumulativeWeights cw: [Double]) -> Int {
        guard let total = cw.last else { preconditionFailure("weightedIndex: no weights") }
        precondition(total > 0 && total.isFinite, "weightedIndex: total weight must be positive and finite")
        let x = random() * total
        var lo = 0
        var hi = cw.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if x < cw[mid] { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
