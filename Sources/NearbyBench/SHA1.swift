import NearbyKit

/// SHA-1 (FIPS 180-4, "Secure Hash Standard", NIST 2015, sections 5.1.1, 6.1.2), for answer checksums.
///
/// Linux has no CommonCrypto and Foundation has no hash, so this is the standard's algorithm as written:
/// pad to 512-bit blocks, expand each block to 80 words, 80 rounds. It is used to fingerprint answers
/// (see `AnswerChecksum`), never for security: SHA-1 is broken for collision resistance.
/// Checked against the FIPS 180-4 / RFC 3174 test vectors in `SHA1Tests`.
public struct SHA1: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    public init() { block.reserveCapacity(64) }

    /// Feeds more message bytes.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for b in bytes {
            block.append(b)
            length &+= 1
            if block.count == 64 {
                compress()
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Feeds the UTF-8 bytes of a string.
    public mutating func update(_ string: String) {
        var s = string
        s.withUTF8 { update($0) }
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 20-byte digest.
    public mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            compress()
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for i in (0..<8).reversed() { block.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        compress()
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return out
    }

    /// The digest of `bytes` as 40 lower-case hex digits.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var s = SHA1()
        s.update(bytes)
        return hexString(s.finalize())
    }

    /// The digest of a string's UTF-8 bytes as 40 lower-case hex digits.
    public static func hex(_ string: String) -> String { hex(Array(string.utf8)) }

    /// A digest as lower-case hex digits.
    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var chars: [UInt8] = []
        chars.reserveCapacity(digest.count * 2)
        for b in digest {
            chars.append(digits[Int(b >> 4)])
            chars.append(digits[Int(b & 15)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// One 512-bit block (FIPS 180-4 §6.1.2): message schedule W[0..79], then 80 rounds with
    /// f = Ch, Parity, Maj, Parity and the constants K of §4.2.1.
    private mutating func compress() {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
            for t in 0..<16 {
                w[t] =
                    UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16
                    | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
            }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20:
                    f = (b & c) | (~b & d)
                    k = 0x5A82_7999
                case 20..<40:
                    f = b ^ c ^ d
                    k = 0x6ED9_EBA1
                case 40..<60:
                    f = (b & c) | (b & d) | (c & d)
                    k = 0x8F1B_BCDC
                default:
                    f = b ^ c ^ d
                    k = 0xCA62_C1D6
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                e = d
                d = c
                c = rotl(b, 30)
                b = a
                a = temp
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
    }

    @inline(__always) private func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
