/// Position along a Hilbert curve of order 16 (a 65,536 × 65,536 grid), used to pack the R-tree.
///
/// Points close on the curve are close in the plane, so consecutive runs of points make tight boxes.
/// Algorithm: the branch-free "fast Hilbert curve" of threadlocalmutex.com
/// (github.com/rawrunprotected/hilbert_curves, public domain), the same one mourner's flatbush uses:
/// the four curve states are tracked as bit masks and combined two, four and eight levels at a time.
/// Exact (integer arithmetic); a bijection from the grid onto 0 ..< 2³²; the curve starts at (0, 0),
/// so the first 4ᵏ values fill the 2ᵏ × 2ᵏ square in the corner (the tests check this).
@inlinable
public func hilbertIndex(x: UInt32, y: UInt32) -> UInt32 {
    precondition(x <= 0xFFFF && y <= 0xFFFF, "Hilbert coordinates are 16-bit")
    var a = x ^ y
    var b = 0xFFFF ^ a
    var c = 0xFFFF ^ (x | y)
    var d = x & (y ^ 0xFFFF)

    var A = a | (b >> 1)
    var B = (a >> 1) ^ a
    var C = c ^ ((c >> 1) ^ (b & (d >> 1)))
    var D = d ^ ((a & (c >> 1)) ^ (d >> 1))

    a = (A & (A >> 2)) ^ (B & (B >> 2))
    b = (A & (B >> 2)) ^ (B & ((A ^ B) >> 2))
    c = C ^ ((A & (C >> 2)) ^ (B & (D >> 2)))
    d = D ^ ((B & (C >> 2)) ^ ((A ^ B) & (D >> 2)))

    A = (a & (a >> 4)) ^ (b & (b >> 4))
    B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4))
    C = c ^ ((a & (c >> 4)) ^ (b & (d >> 4)))
    D = d ^ ((b & (c >> 4)) ^ ((a ^ b) & (d >> 4)))

    c = C ^ ((A & (C >> 8)) ^ (B & (D >> 8)))
    d = D ^ ((B & (C >> 8)) ^ ((A ^ B) & (D >> 8)))

    c ^= c >> 1
    d ^= d >> 1
    let i0 = spreadBits(x ^ y)
    let i1 = spreadBits(d | (0xFFFF ^ ((x ^ y) | c)))
    return (i1 << 1) | i0
}

/// Moves bit k of a 16-bit value to bit 2k (Morton interleaving).
@inlinable
func spreadBits(_ v: UInt32) -> UInt32 {
    var v = v
    v = (v | (v << 8)) & 0x00FF_00FF
    v = (v | (v << 4)) & 0x0F0F_0F0F
    v = (v | (v << 2)) & 0x3333_3333
    v = (v | (v << 1)) & 0x5555_5555
    return v
}
