import Testing

@testable import NearbyBench

/// Test vectors from FIPS 180-4's examples (csrc.nist.gov "SHA1.pdf") and RFC 3174 §7.3.
@Suite struct SHA1Tests {
    @Test func fipsOneBlockMessage() {
        #expect(SHA1.hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func fipsTwoBlockMessage() {
        #expect(
            SHA1.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func rfc3174MillionAs() {
        var h = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { h.update(chunk) }
        #expect(SHA1.hexString(h.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func rfc3174RepeatedEightBytes() {
        let message = String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10)
        #expect(SHA1.hex(message) == "dea356a2cddd90c7a7ecedc5ebb563934f460452")
    }

    @Test func emptyMessage() {
        #expect(SHA1.hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    /// Messages of 55, 56 and 64 bytes hit every padding branch (length fits, spills, exact block).
    @Test func paddingBoundaries() {
        #expect(SHA1.hex(String(repeating: "a", count: 55)) == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(SHA1.hex(String(repeating: "a", count: 56)) == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(SHA1.hex(String(repeating: "a", count: 64)) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    /// Feeding a message in pieces gives the same digest as feeding it at once.
    @Test func incrementalUpdateMatchesOneShot() {
        let text = "3,17,5,가나다,1000000"
        var h = SHA1()
        for piece in ["3,1", "7,5,", "가나다", ",1000000"] { h.update(piece) }
        #expect(SHA1.hexString(h.finalize()) == SHA1.hex(text))
    }
}
