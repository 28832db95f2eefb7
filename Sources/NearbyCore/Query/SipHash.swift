/// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", INDOCRYPT 2012): a keyed
/// 64-bit MAC for short messages. Here it makes page cursors tamper-evident: without the cache's secret
/// key, a forger has a 2⁻⁶⁴ chance per try. Checked against the paper's test vectors (Appendix A).
public struct SipHash24 {
    public static func mac(_ message: some Sequence<UInt8>, k0: UInt64, k1: UInt64) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        @inline(__always) func round() {
            v0 = v0 &+ v1
            v1 = v1.rotl(13)
            v1 ^= v0
            v0 = v0.rotl(32)
            v2 = v2 &+ v3
            v3 = v3.rotl(16)
            v3 ^= v2
            v0 = v0 &+ v3
            v3 = v3.rotl(21)
            v3 ^= v0
            v2 = v2 &+ v1
            v1 = v1.rotl(17)
            v1 ^= v2
            v2 = v2.rotl(32)
        }
        var word: UInt64 = 0
        var count = 0
        for byte in message {
            word |= UInt64(byte) << (8 * UInt64(count & 7))
            count += 1
            if count & 7 == 0 {
                v3 ^= word
                round()
                round()
                v0 ^= word
                word = 0
            }
        }
        word |= UInt64(count & 0xFF) << 56
        v3 ^= word
        round()
        round()
        v0 ^= word
        v2 ^= 0xFF
        round()
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always) fileprivate func rotl(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
